// Auto top-up, the mandate: a Base wallet opts in with a threshold, a top-up amount and an optional cap per period,
// and signs a handful of EIP-3009 authorizations of that amount to our recipient (long validity, random nonces).
// Their sum is the overall cap, enforced by the chain itself: the server can move no more than was signed, to no one
// but the recipient. They are stored sealed under the secrets key (when there is one) and never sent back; revoking
// discards the unused ones. auto-topup-runner.ts settles them when the balance falls below the threshold.
//
// Why EIP-3009 and not Permit2 or a Solana transfer: USDC's own authorization needs no approval transaction and no
// contract of ours, and x402's `exact` scheme already settles it (the same facilitator path as a top-up). A Solana
// payment is a signed transaction bound to a recent blockhash that expires within about a minute, so it cannot be
// signed ahead of time without durable nonce accounts; auto top-up is offered on Base only.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { recoverTypedDataAddress } from 'viem';
import { ApiError } from '../api/errors.ts';
import { fromMicros, toMicros } from '../billing/money.ts';
import type { SecretBox } from '../db/secret-box.ts';
import type { Queryable, Store } from '../db/store.ts';
import type { WalletConfig } from './config.ts';
import { readPayment } from './payment.ts';
import { evmOffer } from './requirements.ts';
import { publicClientFor } from './signatures.ts';
import type { Wallet } from './wallets.ts';
import type { AutoTopUpAuthorization, AutoTopUpRevoked, AutoTopUpState } from './wire.ts';

/** How many authorizations one mandate may hold. */
export const MAX_AUTHORIZATIONS = 24;
/** An authorization must stay valid at least this long from now (seconds), or it is not worth storing. */
export const MIN_VALIDITY_S = 24 * 3600;
/** The validity the app asks the wallet to sign (its requirement's maxTimeoutSeconds): about six months. */
export const SIGNED_VALIDITY_S = 180 * 24 * 3600;

export const autoTopUpBody = z.strictObject({
  thresholdUsd: z.number().min(0).max(1_000_000),
  amountUsd: z.number().positive(),
  periodCapUsd: z.number().positive().nullish(),
  periodDays: z.number().int().min(1).max(366).nullish(),
  payments: z
    .array(z.custom<Record<string, unknown>>((v) => typeof v === 'object' && v !== null && !Array.isArray(v), { error: 'must be a signed x402 payment' }))
    .min(1)
    .max(MAX_AUTHORIZATIONS),
});
export type AutoTopUpBody = z.infer<typeof autoTopUpBody>;

export interface MandateDeps {
  store: Store;
  cfg: WalletConfig;
  secrets: SecretBox | undefined;
}

/** The sealing context: a sealed payment copied onto another row does not open there. */
export const sealContext = (id: string) => `auto-topup:${id}`;

const TRANSFER_TYPES = {
  TransferWithAuthorization: [
    { name: 'from', type: 'address' },
    { name: 'to', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'validAfter', type: 'uint256' },
    { name: 'validBefore', type: 'uint256' },
    { name: 'nonce', type: 'bytes32' },
  ],
} as const;

interface Checked {
  id: string;
  nonce: string;
  validBefore: number;
  /** The payment header the settlement path reads (topup.ts#verifyPayment). */
  header: string;
}

/** Reads one signed authorization: ours in every field, of `amount`, from this wallet, long-lived, signed by it. */
async function checkOne(cfg: WalletConfig, wallet: Wallet, amount: number, raw: Record<string, unknown>, now: number): Promise<Checked> {
  // The client's `accepted` copy is not used: its validity differs from a top-up's timeout by design. The settlement
  // reads the authorization against our own offer at this amount.
  const envelope = { x402Version: 2, accepted: evmOffer(cfg, amount), payload: raw.payload };
  const header = Buffer.from(JSON.stringify(envelope)).toString('base64');
  const p = await readPayment(header, cfg, async () => undefined, { schemes: ['exact'], min: amount, max: amount, what: 'auto top-up' });
  const a = p.authorization!;
  if (a.from.toLowerCase() !== wallet.address)
    throw new ApiError('X402_WALLET_MISMATCH', 'Every authorization must be signed by the wallet you are signed in with');
  const auth = (p.payload.payload as { authorization: Record<string, string>; signature: `0x${string}` }).authorization;
  const validAfter = Number(auth.validAfter);
  const validBefore = Number(auth.validBefore);
  if (validAfter > now / 1000) throw new ApiError('INVALID_PAYMENT', 'An auto top-up authorization must be valid now (validAfter in the past)');
  if (validBefore < now / 1000 + MIN_VALIDITY_S)
    throw new ApiError('INVALID_PAYMENT', `An auto top-up authorization must stay valid at least ${MIN_VALIDITY_S / 3600} hours (validBefore)`);
  const typed = {
    domain: {
      name: String(p.requirements.extra.name),
      version: String(p.requirements.extra.version),
      chainId: cfg.evm.chainId,
      verifyingContract: p.requirements.asset as `0x${string}`,
    },
    types: TRANSFER_TYPES,
    primaryType: 'TransferWithAuthorization' as const,
    message: {
      from: auth.from as `0x${string}`,
      to: auth.to as `0x${string}`,
      value: BigInt(auth.value),
      validAfter: BigInt(auth.validAfter),
      validBefore: BigInt(auth.validBefore),
      nonce: auth.nonce as `0x${string}`,
    },
  };
  const signature = (p.payload.payload as { signature: `0x${string}` }).signature;
  // A smart wallet's signature is checked through the RPC (ERC-1271 / ERC-6492); a plain key's by recovery.
  const valid = cfg.evm.rpcUrl
    ? await publicClientFor(cfg.evm.rpcUrl).verifyTypedData({ address: auth.from as `0x${string}`, signature, ...typed })
    : await recoverTypedDataAddress({ ...typed, signature }).then(
        (r) => r.toLowerCase() === wallet.address,
        () => false,
      );
  if (!valid)
    throw new ApiError('PAYMENT_VERIFICATION_FAILED', 'An auto top-up authorization has an invalid signature', { details: { reason: 'invalid_signature' } });
  return { id: randomUUID(), nonce: a.nonce.toLowerCase(), validBefore: validBefore * 1000, header };
}

/** Opts the wallet in (or replaces its mandate): the earlier unused authorizations are discarded. */
export async function setMandate(deps: MandateDeps, wallet: Wallet, body: AutoTopUpBody, now = Date.now()): Promise<AutoTopUpState> {
  const { cfg } = deps;
  if (wallet.namespace !== 'eip155')
    throw new ApiError(
      'INVALID_REQUEST',
      'Auto top-up needs a Base (EVM) wallet: a Solana payment cannot be signed ahead of time (its blockhash expires within minutes)',
    );
  if (!cfg.rails.evm) throw new ApiError('X402_NOT_CONFIGURED', 'Top-ups with Base USDC are not enabled on this server');
  const amount = toMicros(body.amountUsd);
  if (amount < cfg.minTopUp) throw new ApiError('AMOUNT_TOO_LOW', `The top-up amount must be at least ${fromMicros(cfg.minTopUp)} USD`, { param: 'amountUsd' });
  if (amount > cfg.maxTopUp) throw new ApiError('AMOUNT_TOO_HIGH', `The top-up amount must be at most ${fromMicros(cfg.maxTopUp)} USD`, { param: 'amountUsd' });
  const periodCap = body.periodCapUsd == null ? null : toMicros(body.periodCapUsd);
  const periodDays = body.periodDays ?? null;
  if ((periodCap === null) !== (periodDays === null))
    throw new ApiError('INVALID_REQUEST', 'periodCapUsd and periodDays go together', { param: periodCap === null ? 'periodCapUsd' : 'periodDays' });
  if (periodCap !== null && periodCap < amount)
    throw new ApiError('INVALID_REQUEST', 'periodCapUsd must be at least the top-up amount', { param: 'periodCapUsd' });
  const checked: Checked[] = [];
  for (const raw of body.payments) checked.push(await checkOne(cfg, wallet, amount, raw, now));
  if (new Set(checked.map((c) => c.nonce)).size !== checked.length)
    throw new ApiError('INVALID_PAYMENT', 'Every authorization needs its own nonce', { param: 'payments' });
  await deps.store.tx(async (q) => {
    await discard(q, wallet, now);
    await q.run(
      `INSERT INTO auto_topups (wallet_id, account_id, threshold, amount, period_cap, period_ms, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $7)
       ON CONFLICT (wallet_id) DO UPDATE SET threshold = excluded.threshold, amount = excluded.amount, period_cap = excluded.period_cap,
         period_ms = excluded.period_ms, retry_after = NULL, last_error = NULL, updated_at = excluded.updated_at`,
      [wallet.id, wallet.accountId, toMicros(body.thresholdUsd), amount, periodCap, periodDays === null ? null : periodDays * 86_400_000, now],
    );
    const top = await q.get<{ seq: number | null }>('SELECT MAX(seq) AS seq FROM auto_topup_authorizations WHERE wallet_id = $1', [wallet.id]);
    let seq = Number(top?.seq ?? 0);
    for (const c of checked) {
      const payment = deps.secrets ? deps.secrets.seal(c.header, sealContext(c.id)) : c.header;
      // A nonce signed before (and perhaps used) is refused by the unique index: the whole mandate is rolled back.
      const inserted = await q.run(
        `INSERT INTO auto_topup_authorizations (id, wallet_id, seq, nonce, amount, valid_before, payment, status, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, 'ready', $8, $8) ON CONFLICT (wallet_id, nonce) DO NOTHING`,
        [c.id, wallet.id, ++seq, c.nonce, amount, c.validBefore, payment, now],
      );
      if (inserted !== 1) throw new ApiError('INVALID_PAYMENT', 'An authorization with this nonce was given before', { param: 'payments' });
    }
  });
  return mandateState(deps.store, wallet, now);
}

/** Unused authorizations become `revoked`, their signatures deleted. */
async function discard(q: Queryable, wallet: Wallet, now: number): Promise<{ nonce: string; amount: number }[]> {
  const rows = await q.all<{ nonce: string; amount: number }>(`SELECT nonce, amount FROM auto_topup_authorizations WHERE wallet_id = $1 AND status = 'ready'`, [
    wallet.id,
  ]);
  await q.run(`UPDATE auto_topup_authorizations SET status = 'revoked', payment = NULL, updated_at = $2 WHERE wallet_id = $1 AND status = 'ready'`, [
    wallet.id,
    now,
  ]);
  return rows.map((r) => ({ nonce: r.nonce, amount: Number(r.amount) }));
}

/**
 * Opts out: the mandate is removed and its unused authorizations discarded (an attempt already under way finishes).
 * The server keeps no copy to submit, but the signatures stay valid on chain until they expire: the wallet may
 * cancel each nonce with USDC's `cancelAuthorization`, which only the wallet can sign.
 */
export async function revokeMandate(store: Store, wallet: Wallet, now = Date.now()): Promise<AutoTopUpRevoked> {
  const discarded = await store.tx(async (q) => {
    const d = await discard(q, wallet, now);
    await q.run('DELETE FROM auto_topups WHERE wallet_id = $1', [wallet.id]);
    return d;
  });
  return { ...(await mandateState(store, wallet, now)), discarded: discarded.map((d) => ({ nonce: d.nonce, amountUsd: fromMicros(d.amount) })) };
}

interface MandateRow {
  threshold: number;
  amount: number;
  period_cap: number | null;
  period_ms: number | null;
  last_error: string | null;
}

/** Auto top-ups settled within the period ending now (micro-USD). */
export async function usedInPeriod(q: Queryable, walletId: string, periodMs: number, now: number): Promise<number> {
  const row = await q.get<{ used: number | null }>(
    `SELECT SUM(amount) AS used FROM auto_topup_authorizations WHERE wallet_id = $1 AND status IN ('settled', 'claimed') AND updated_at > $2`,
    [walletId, now - periodMs],
  );
  return Number(row?.used ?? 0);
}

export async function mandateState(store: Store, wallet: Wallet, now = Date.now()): Promise<AutoTopUpState> {
  const [m, rows] = await Promise.all([
    store.get<MandateRow>('SELECT threshold, amount, period_cap, period_ms, last_error FROM auto_topups WHERE wallet_id = $1', [wallet.id]),
    store.all<{
      id: string;
      seq: number;
      nonce: string;
      amount: number;
      status: string;
      valid_before: number;
      tx_hash: string | null;
      error: string | null;
      updated_at: number;
    }>(
      `SELECT id, seq, nonce, amount, status, valid_before, tx_hash, error, updated_at FROM auto_topup_authorizations WHERE wallet_id = $1 ORDER BY seq DESC LIMIT 200`,
      [wallet.id],
    ),
  ]);
  const authorizations: AutoTopUpAuthorization[] = rows.map((r) => ({
    id: r.id,
    seq: Number(r.seq),
    nonce: r.nonce,
    amountUsd: fromMicros(Number(r.amount)),
    status: r.status as AutoTopUpAuthorization['status'],
    validBefore: Number(r.valid_before),
    transaction: r.tx_hash,
    error: r.error,
    updatedAt: Number(r.updated_at),
  }));
  if (!m) return { mandate: null, authorizations };
  const remaining = rows.filter((r) => r.status === 'ready' && Number(r.valid_before) > now).reduce((s, r) => s + Number(r.amount), 0);
  const periodUsed = m.period_ms === null ? 0 : await usedInPeriod(store, wallet.id, Number(m.period_ms), now);
  return {
    mandate: {
      thresholdUsd: fromMicros(Number(m.threshold)),
      amountUsd: fromMicros(Number(m.amount)),
      periodCapUsd: m.period_cap === null ? null : fromMicros(Number(m.period_cap)),
      periodDays: m.period_ms === null ? null : Number(m.period_ms) / 86_400_000,
      remainingUsd: fromMicros(remaining),
      periodUsedUsd: fromMicros(periodUsed),
      lastError: m.last_error,
    },
    authorizations,
  };
}
