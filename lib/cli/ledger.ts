// The CLI's ledger commands: an operator's correction (a signed USD amount with its reason, a new entry) and the
// reconciliation of every account's balances against the append-only ledger (lib/billing/entries.ts).
import { reconcile } from '../billing/entries.ts';
import { correctUsd } from '../billing/ledger.ts';
import { microsToString, toMicros } from '../billing/money.ts';
import { existingAccount, withStore } from './store.ts';
import { need, options, UsageError } from './usage.ts';

export function creditCorrect(args: string[]): Promise<void> {
  const o = options(args, ['account', 'usd', 'reason']);
  const raw = need(o, 'usd');
  const usd = Number(raw);
  if (!Number.isFinite(usd) || usd === 0) throw new UsageError(`--usd must be a non-zero number (negative takes credit away), got "${raw}"`);
  const reason = need(o, 'reason').trim();
  return withStore(async (store) => {
    const a = await existingAccount(store, need(o, 'account'));
    const b = await correctUsd(store, a.id, Math.sign(usd) * toMicros(Math.abs(usd)), reason);
    console.log(`usd balance ${microsToString(b.usd)}`);
  });
}

/** Prints each difference and exits 1 when there is one; the last line says how many accounts were checked. */
export function ledgerReconcile(args: string[]): Promise<void> {
  options(args, []);
  return withStore(async (store) => {
    const { accounts, differences } = await reconcile(store);
    for (const d of differences) {
      console.log(`${d.accountId}\t${d.currency}\tbalance ${microsToString(d.balance)}\tledger ${microsToString(d.expected)}`);
    }
    console.log(`${accounts} accounts, ${differences.length} difference(s)`);
    if (differences.length) process.exitCode = 1;
  });
}
