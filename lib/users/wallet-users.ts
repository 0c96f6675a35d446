// Browser-app users who sign in with a wallet instead of an email and password. Such a user is a users row linked
// to the wallet (users.wallet_id): its account is the wallet's own account, so the credit a browser top-up adds, the
// credit an API top-up adds and what chats spend are one balance, and its chats run through the wallet's
// server-held key (the same principal as the wallet's SIGN-IN-WITH-X API requests).
import { randomUUID } from 'node:crypto';
import type { Principal } from '../auth/keys.ts';
import type { Store } from '../db/store.ts';
import { walletPrincipal, type Wallet } from '../wallet/wallets.ts';
import { toUser, type User, USER_COLUMNS, type UserRow, type UserWallet } from './rows.ts';

/**
 * The users.email of a wallet user. It is never shown (AppUser.email is null for wallet users) and can never be
 * signed in with: it is not an email address (sign-up refuses it), and the row has no password hash.
 */
export const walletUserEmail = (w: Pick<Wallet, 'namespace' | 'address'>): string => `wallet:${w.namespace}:${w.address}`;

/** A short, recognisable name for the wallet: 0x12ab…cd34 or 7xKX…sAsU. */
export function shortAddress(address: string): string {
  const head = address.startsWith('0x') ? 6 : 4;
  return address.length <= head + 6 ? address : `${address.slice(0, head)}…${address.slice(-4)}`;
}

/** The user a wallet signs in as: its wallet-only user, or the email user it is linked to (lib/users/wallet-link.ts). */
export async function findWalletUser(store: Store, walletId: string): Promise<User | undefined> {
  const row = await store.get<UserRow>(`SELECT ${USER_COLUMNS} FROM users u WHERE u.wallet_id = $1 OR u.linked_wallet_id = $1`, [walletId]);
  return row && toUser(row);
}

/** The wallet's browser-app user, created on its first sign-in (two racing first sign-ins create one). */
export async function ensureWalletUser(store: Store, wallet: Wallet, now = Date.now()): Promise<User> {
  const existing = await findWalletUser(store, wallet.id);
  if (existing) return existing;
  // Wallet users are never the operator admin, whoever comes first: an admin is made by email sign-up.
  await store.run(
    `INSERT INTO users (id, email, password_hash, display_name, is_admin, account_id, created_at, wallet_id)
     VALUES ($1, $2, '', $3, FALSE, $4, $5, $6) ON CONFLICT DO NOTHING`,
    [randomUUID(), walletUserEmail(wallet), shortAddress(wallet.address), wallet.accountId, now, wallet.id],
  );
  const created = await findWalletUser(store, wallet.id);
  if (!created) throw new Error(`the browser user for wallet ${wallet.id} could not be created`);
  return created;
}

/** The principal a wallet user's chats run as: the wallet's own (401 when an operator revoked its key). */
export async function walletUserPrincipal(store: Store, w: UserWallet, now = Date.now()): Promise<Principal> {
  const row = await store.get<{ account_id: string; key_id: string; created_at: number }>('SELECT account_id, key_id, created_at FROM wallets WHERE id = $1', [
    w.id,
  ]);
  if (!row) throw new Error(`wallet ${w.id} of a browser user is missing`);
  const wallet: Wallet = {
    id: w.id,
    namespace: w.namespace,
    address: w.address,
    accountId: row.account_id,
    keyId: row.key_id,
    createdAt: Number(row.created_at),
  };
  return walletPrincipal(store, wallet, now);
}
