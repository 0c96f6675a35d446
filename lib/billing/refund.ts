// Zero-completion insurance: a request whose answer did not reach its client is not charged (issue 28). The HTTP
// layer decides what counts as not delivered (lib/http/guard.ts); this gives the charge back, once. The usage row stays,
// with its quantities and its charge moved to refunded_usd / refunded_diem, so every sum over `usd` and `diem`
// (statements, analytics, key spend) already leaves it out and the row still shows what was refunded.
import type { Queryable, Store } from '../db/store.ts';
import type { Amount } from './money.ts';
import { diemEpoch } from './money.ts';
import { periodKey } from './key-limits.ts';
import { addEntry } from './entries.ts';

interface UsageCharge {
  account_id: string;
  key_id: string | null;
  usd: number | string;
  diem: number | string;
  created_at: number | string;
}

/** Refunds the request's charge; returns what went back ({0, 0} when there was none or it went back before). */
export async function refundIn(store: Store, q: Queryable, requestId: string, now = Date.now()): Promise<Amount> {
  const row = await q.get<UsageCharge>('SELECT account_id, key_id, usd, diem, created_at FROM usage WHERE request_id = $1 AND refunded_usd IS NULL', [
    requestId,
  ]);
  if (!row) return { usd: 0, diem: 0 };
  // The account row first, in the order every ledger step locks (ledger.ts#settleIn).
  const account = await q.get<{ diem_epoch: string }>(`SELECT diem_epoch FROM accounts WHERE id = $1${store.forUpdate}`, [row.account_id]);
  const claimed = await q.run('UPDATE usage SET refunded_usd = usd, refunded_diem = diem, usd = 0, diem = 0 WHERE request_id = $1 AND refunded_usd IS NULL', [
    requestId,
  ]);
  if (claimed === 0) return { usd: 0, diem: 0 };
  const charged = { usd: Number(row.usd), diem: Number(row.diem) };
  const chargedAt = Number(row.created_at);
  // DIEM is a daily allowance: a charge from an earlier day is gone with that day's refill, so only today's returns,
  // and only to a row already refilled today (one that is not gets today's allowance whole at its refill).
  const today = diemEpoch(now);
  const diem = diemEpoch(chargedAt) === today ? charged.diem : 0;
  const diemBack = account?.diem_epoch === today ? diem : 0;
  await q.run('UPDATE accounts SET usd = usd + $2, diem = diem + $3 WHERE id = $1', [row.account_id, charged.usd, diemBack]);
  // The usage row keeps its original charge (as refunded_*), and the refund is an entry of its own.
  await addEntry(q, { accountId: row.account_id, kind: 'refund', usd: charged.usd, diem: diemBack, ref: requestId, note: 'not delivered', at: now });
  if (row.key_id) {
    // The key's spend for the period the charge counted in; a period that has ended since keeps its total.
    await q.run(
      `UPDATE api_keys SET spent_usd = spent_usd - $2, spent_diem = spent_diem - $3
        WHERE id = $1 AND spent_period IN ($4, $5, $6, 'LIFETIME')`,
      [row.key_id, charged.usd, charged.diem, periodKey('EPOCH', chargedAt), periodKey('MONTH', chargedAt), periodKey('WEEK', chargedAt)],
    );
  }
  return { usd: charged.usd, diem: diemBack };
}
