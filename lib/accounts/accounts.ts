// Accounts: the unit that owns keys, credit and usage.
import { randomUUID } from 'node:crypto';
import { ApiError } from '../api/errors.ts';
import type { Store } from '../db/store.ts';

export type AccountTier = 'default' | 'partner';

export interface Account {
  id: string;
  name: string;
  tier: AccountTier;
  createdAt: number;
  /** Set while the operator has disabled the account (every credential of it is refused); null otherwise. */
  disabledAt: number | null;
}

interface AccountRow {
  id: string;
  name: string;
  tier: string;
  created_at: number;
  disabled_at: number | string | null;
}

const toAccount = (r: AccountRow): Account => ({
  id: r.id,
  name: r.name,
  tier: r.tier as AccountTier,
  createdAt: r.created_at,
  disabledAt: r.disabled_at === null || r.disabled_at === undefined ? null : Number(r.disabled_at),
});

const ACCOUNT_COLUMNS = 'id, name, tier, created_at, disabled_at';

export async function createAccount(store: Store, name: string): Promise<Account> {
  const trimmed = name.trim();
  if (!trimmed || trimmed.length > 200) throw new RangeError('account name must be 1-200 characters');
  const account: Account = { id: randomUUID(), name: trimmed, tier: 'default', createdAt: Date.now(), disabledAt: null };
  await store.run('INSERT INTO accounts (id, name, tier, created_at) VALUES ($1, $2, $3, $4)', [account.id, account.name, account.tier, account.createdAt]);
  return account;
}

export async function getAccount(store: Store, id: string): Promise<Account | undefined> {
  const row = await store.get<AccountRow>(`SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE id = $1`, [id]);
  return row && toAccount(row);
}

export async function listAccounts(store: Store): Promise<Account[]> {
  return (await store.all<AccountRow>(`SELECT ${ACCOUNT_COLUMNS} FROM accounts ORDER BY created_at`)).map(toAccount);
}

export async function setAccountTier(store: Store, id: string, tier: AccountTier): Promise<boolean> {
  return (await store.run('UPDATE accounts SET tier = $2 WHERE id = $1', [id, tier])) === 1;
}

/** Disables the account (now) or enables it again; false when there is no such account. */
export async function setAccountDisabled(store: Store, id: string, disabled: boolean, now = Date.now()): Promise<boolean> {
  return (await store.run('UPDATE accounts SET disabled_at = $2 WHERE id = $1', [id, disabled ? now : null])) === 1;
}

export const ACCOUNT_DISABLED_MESSAGE = 'This account has been disabled by the operator';

/**
 * The one rule every credential applies when it authenticates (API keys in lib/auth/keys.ts, wallet sign-ins in
 * lib/wallet/wallets.ts, browser sessions in lib/http/app-route.ts): a disabled account is refused with 403 and says why.
 */
export function refuseDisabledAccount(disabledAt: number | string | null | undefined): void {
  if (disabledAt !== null && disabledAt !== undefined) throw new ApiError('FORBIDDEN', ACCOUNT_DISABLED_MESSAGE, { reason: 'account_disabled' });
}
