// Sign-In-With-X nonces. The server issues them (32 hex characters, with an expiry) and each is consumed by exactly
// one request: the consuming UPDATE is conditional, so two requests racing with one header, on one instance or on
// two sharing the database, cannot both win. Replay protection is keyed on the nonce, never on signature bytes (an
// ECDSA signature has a second valid form). Legacy clients choose their own nonce; those are remembered per wallet
// for as long as a message carrying them could still be accepted.
import { randomBytes } from 'node:crypto';
import type { Store } from '../db/store.ts';
import { log } from '../log.ts';

export type NonceOutcome = 'ok' | 'reused' | 'unknown' | 'expired';

/** EIP-4361: at least 8 alphanumeric characters. */
export const NONCE_PATTERN = /^[A-Za-z0-9]{8,64}$/;

const CLEANUP_EVERY_MS = 60_000;
const lastCleanup = new WeakMap<Store, number>();

export async function issueNonce(store: Store, ttlMs: number, now = Date.now()): Promise<{ nonce: string; issuedAt: number; expiresAt: number }> {
  const nonce = randomBytes(16).toString('hex');
  const expiresAt = now + ttlMs;
  await store.run('INSERT INTO siwx_nonces (nonce, issued_at, expires_at) VALUES ($1, $2, $3)', [nonce, now, expiresAt]);
  if (now - (lastCleanup.get(store) ?? 0) > CLEANUP_EVERY_MS) {
    lastCleanup.set(store, now);
    // Expired rows can no longer be used nor replayed (their messages fail the age check), so they can go.
    store.run('DELETE FROM siwx_nonces WHERE expires_at < $1', [now]).catch((e) => log.error({ err: e }, 'siwx: could not delete expired nonces'));
  }
  return { nonce, issuedAt: now, expiresAt };
}

/**
 * Consumes a nonce for one request by `address`. A server nonce must exist, be unused and unexpired. With
 * `clientChosenUntil` (legacy payloads), a nonce the server never issued is accepted once per wallet and remembered
 * until then.
 */
export async function consumeNonce(
  store: Store,
  nonce: string,
  address: string,
  opts: { clientChosenUntil?: number } = {},
  now = Date.now(),
): Promise<NonceOutcome> {
  const taken = await store.run('UPDATE siwx_nonces SET used_at = $2, address = $3 WHERE nonce = $1 AND used_at IS NULL AND expires_at > $2', [
    nonce,
    now,
    address,
  ]);
  if (taken === 1) return 'ok';
  const row = await store.get<{ used_at: number | null }>('SELECT used_at FROM siwx_nonces WHERE nonce = $1', [nonce]);
  if (row) return row.used_at === null ? 'expired' : 'reused';
  if (opts.clientChosenUntil === undefined) return 'unknown';
  // A client's nonce is only unique per wallet, so it is stored under the wallet; server nonces are bare hex and
  // can never collide with these keys.
  const inserted = await store.run(
    'INSERT INTO siwx_nonces (nonce, issued_at, expires_at, used_at, address) VALUES ($1, $2, $3, $2, $4) ON CONFLICT (nonce) DO NOTHING',
    [`client:${address}:${nonce}`, now, opts.clientChosenUntil, address],
  );
  return inserted === 1 ? 'ok' : 'reused';
}
