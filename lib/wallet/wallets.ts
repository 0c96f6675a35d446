// Wallet users. Each wallet (an EVM or Solana address) gets its own account, so its credit is its own USD balance,
// and one server-held INFERENCE key whose secret is thrown away at creation: requests signed in by the wallet run as
// that key's principal, so usage rows, rate limits (per key and model) and the abuse block work as for API keys,
// and an operator can shut a wallet out by revoking its key.
import { randomUUID } from 'node:crypto';
import { ApiError } from '../api/errors.ts';
import { accountKeys, generateSecret, hashSecret, type Principal } from '../auth/keys.ts';
import { getAccount, refuseDisabledAccount } from '../accounts/accounts.ts';
import type { Store } from '../db/store.ts';
import { normaliseAddress, type WalletNamespace } from './networks.ts';

export interface Wallet {
  id: string;
  namespace: WalletNamespace;
  /** Normalised: lowercase hex for EVM, base58 for Solana. */
  address: string;
  accountId: string;
  keyId: string;
  createdAt: number;
}

interface WalletRow {
  id: string;
  namespace: string;
  address: string;
  account_id: string;
  key_id: string;
  created_at: number;
}

const toWallet = (r: WalletRow): Wallet => ({
  id: r.id,
  namespace: r.namespace as WalletNamespace,
  address: r.address,
  accountId: r.account_id,
  keyId: r.key_id,
  createdAt: Number(r.created_at),
});

export const WALLET_KEY_DESCRIPTION = 'wallet sign-in (server-held)';

export async function findWallet(store: Store, namespace: WalletNamespace, address: string): Promise<Wallet | undefined> {
  const row = await store.get<WalletRow>('SELECT id, namespace, address, account_id, key_id, created_at FROM wallets WHERE namespace = $1 AND address = $2', [
    namespace,
    normaliseAddress(namespace, address),
  ]);
  return row && toWallet(row);
}

class AlreadyCreated extends Error {}

/** The wallet's record, created with its account and key on first use (concurrent first uses create one). */
export async function ensureWallet(store: Store, namespace: WalletNamespace, address: string, now = Date.now()): Promise<Wallet> {
  const existing = await findWallet(store, namespace, address);
  if (existing) return existing;
  const normal = normaliseAddress(namespace, address);
  const wallet: Wallet = { id: randomUUID(), namespace, address: normal, accountId: randomUUID(), keyId: randomUUID(), createdAt: now };
  try {
    await store.tx(async (q) => {
      await q.run('INSERT INTO accounts (id, name, tier, created_at) VALUES ($1, $2, $3, $4)', [
        wallet.accountId,
        `wallet ${namespace}:${normal}`,
        'default',
        now,
      ]);
      await q.run(
        `INSERT INTO api_keys (id, account_id, key_hash, last6, type, description, created_at, limit_period)
         VALUES ($1, $2, $3, $4, 'INFERENCE', $5, $6, 'EPOCH')`,
        [wallet.keyId, wallet.accountId, hashSecret(generateSecret('INFERENCE')), '', WALLET_KEY_DESCRIPTION, now],
      );
      const inserted = await q.run(
        'INSERT INTO wallets (id, namespace, address, account_id, key_id, created_at) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (namespace, address) DO NOTHING',
        [wallet.id, namespace, normal, wallet.accountId, wallet.keyId, now],
      );
      if (inserted !== 1) throw new AlreadyCreated(); // rolls back this account and key
    });
    return wallet;
  } catch (e) {
    if (!(e instanceof AlreadyCreated) && !isUniqueViolation(e)) throw e;
    const winner = await findWallet(store, namespace, address);
    if (!winner) throw e;
    return winner;
  }
}

// PostgreSQL may report the race as a unique violation (23505) rather than a skipped insert.
const isUniqueViolation = (e: unknown) => typeof e === 'object' && e !== null && (e as { code?: string }).code === '23505';

// Principals are cached briefly, as for bearer keys: a revocation of a wallet's key takes effect within the TTL.
const PRINCIPAL_TTL_MS = 5_000;
const cache = new WeakMap<Store, Map<string, { principal: Principal; until: number }>>();

/** Forgets cached wallet principals (after an account change that must take effect at once, such as disabling it). */
export const forgetWalletPrincipals = (store: Store): void => cache.get(store)?.clear();

/** The principal requests signed in by this wallet run as; 401 when an operator revoked the wallet's key. */
export async function walletPrincipal(store: Store, wallet: Wallet, now = Date.now()): Promise<Principal> {
  let c = cache.get(store);
  if (!c) cache.set(store, (c = new Map()));
  const hit = c.get(wallet.id);
  if (hit && hit.until > now) return hit.principal;
  const [account, key] = await Promise.all([getAccount(store, wallet.accountId), accountKeys(store, wallet.accountId).get(wallet.keyId)]);
  if (!account || !key) throw new ApiError('AUTHENTICATION_FAILED');
  refuseDisabledAccount(account.disabledAt);
  if (key.revokedAt !== null || (key.expiresAt !== null && key.expiresAt <= now))
    throw new ApiError('AUTHENTICATION_FAILED_INACTIVE_KEY', 'This wallet has been disabled by the operator');
  const principal: Principal = { accountId: account.id, accountTier: account.tier, keyId: key.id, keyType: key.type, key };
  if (c.size >= 10_000) c.delete(c.keys().next().value!);
  c.set(wallet.id, { principal, until: now + PRINCIPAL_TTL_MS });
  return principal;
}
