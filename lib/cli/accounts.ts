// The CLI's account commands: create, list, credit, DIEM allowance and tier.
import { createAccount, listAccounts, setAccountTier } from '../accounts/accounts.ts';
import { getBalances, grantUsd, setDiemDaily } from '../billing/ledger.ts';
import { microsToString, toMicros } from '../billing/money.ts';
import { existingAccount, withStore } from './store.ts';
import { amount, need, options, UsageError } from './usage.ts';

export function accountCreate(args: string[]): Promise<void> {
  const o = options(args, ['name']);
  return withStore(async (store) => {
    console.log((await createAccount(store, need(o, 'name'))).id);
  });
}

/** One line per account: id, name, tier, USD balance, DIEM left today, created (and disabled) dates. */
export function accountList(args: string[]): Promise<void> {
  options(args, []);
  return withStore(async (store) => {
    for (const a of await listAccounts(store)) {
      const b = await getBalances(store, a.id);
      const state = a.disabledAt === null ? '' : `\tdisabled ${new Date(a.disabledAt).toISOString()}`;
      console.log(
        `${a.id}\t${a.name}\t${a.tier}\tusd ${microsToString(b.usd)}\tdiem ${microsToString(b.diem)}\t${new Date(a.createdAt).toISOString()}${state}`,
      );
    }
  });
}

export function creditGrant(args: string[]): Promise<void> {
  const o = options(args, ['account', 'usd']);
  const usd = toMicros(amount(need(o, 'usd'), 'usd'));
  return withStore(async (store) => {
    const a = await existingAccount(store, need(o, 'account'));
    const b = await grantUsd(store, a.id, usd, 'cli grant');
    console.log(`usd balance ${microsToString(b.usd)}`);
  });
}

export function diemSet(args: string[]): Promise<void> {
  const o = options(args, ['account', 'daily']);
  const daily = toMicros(amount(need(o, 'daily'), 'daily'));
  return withStore(async (store) => {
    const a = await existingAccount(store, need(o, 'account'));
    const b = await setDiemDaily(store, a.id, daily);
    console.log(`diem daily ${microsToString(b.diemDaily)}, remaining today ${microsToString(b.diem)}`);
  });
}

export function tierSet(args: string[]): Promise<void> {
  const o = options(args, ['account', 'tier']);
  const tier = need(o, 'tier');
  if (tier !== 'default' && tier !== 'partner') throw new UsageError('--tier must be default or partner');
  return withStore(async (store) => {
    const a = await existingAccount(store, need(o, 'account'));
    await setAccountTier(store, a.id, tier);
    console.log(`tier ${tier}`);
  });
}
