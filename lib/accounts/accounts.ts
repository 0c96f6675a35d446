// Accounts: the unit that owns keys, credit and usage.
import { randomUUID } from 'node:crypto';
import type { Store } from '../db/store.ts';

export type AccountTier = 'default' | 'partner';

export interface Account {
  id: string;
  name: string;
  tier: AccountTier;
  createdAt: number;
}

interface AccountRow {
  id: string;
  name: string;
  tier: string;
  created_at: number;
}

const toAccount = (r: AccountRow): Account => ({ id: r.id, name: r.name, tier: r.tier as AccountTier, createdAt: r.created_at });

export async function createAccount(store: Store, name: string): Promise<Account> {
  const trimmed = name.trim();
  if (!trimmed || trimmed.length > 200) throw new RangeError('account name must be 1-200 characters');
  const account: Account = { id: randomUUID(), name: trimmed, tier: 'default', createdAt: Date.now() };
  await store.run('INSERT INTO accounts (id, name, tier, created_at) VALUES ($1, $2, $3, $4)', [account.id, account.name, account.tier, account.createdAt]);
  return account;
}

export async function getAccount(store: Store, id: string): Promise<Account | undefined> {
  const row = await store.get<AccountRow>('SELECT id, name, tier, created_at FROM accounts WHERE id = $1', [id]);
  return row && toAccount(row);
}

export async function listAccounts(store: Store): Promise<Account[]> {
  return (await store.all<AccountRow>('SELECT id, name, tier, created_at FROM accounts ORDER BY created_at')).map(toAccount);
}

export async function setAccountTier(store: Store, id: string, tier: AccountTier): Promise<boolean> {
  return (await store.run('UPDATE accounts SET tier = $2 WHERE id = $1', [id, tier])) === 1;
}
