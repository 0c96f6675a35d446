// The append-only ledger (migration 27): every movement of an account's credit that is not a charge, written in the
// transaction that makes it. Charges are the usage rows. Together they account for every balance:
//   usd  = Σ entries.usd  − Σ usage (usd + refunded_usd)
//   diem = Σ entries.diem − Σ usage (diem + refunded_diem)
// (the balance columns as stored: a DIEM refill not yet applied to a row has no entry yet either). reconcile()
// checks both for every account; `lagoon ledger reconcile` prints what it finds and exits 1 on a difference.
import { randomUUID } from 'node:crypto';
import type { Queryable, Store } from '../db/store.ts';

export const ENTRY_KINDS = ['opening', 'grant', 'topup', 'refund', 'correction', 'allowance', 'release', 'transfer'] as const;
export type EntryKind = (typeof ENTRY_KINDS)[number];

export interface EntryInput {
  accountId: string;
  kind: EntryKind;
  /** Signed micro-units: what the movement added to the balance (a correction may take some away). */
  usd?: number;
  diem?: number;
  /** A release moves nothing: it says what a hold had set aside. */
  heldUsd?: number;
  heldDiem?: number;
  /** What the entry is about: the request, grant or top-up id. */
  ref?: string | null;
  /** Why, in words: the operator's reason for a correction or grant. */
  note?: string | null;
  at?: number;
}

export async function addEntry(q: Queryable, e: EntryInput): Promise<string> {
  const id = randomUUID();
  await q.run(
    `INSERT INTO ledger_entries (id, account_id, kind, usd, diem, held_usd, held_diem, ref, note, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    [id, e.accountId, e.kind, e.usd ?? 0, e.diem ?? 0, e.heldUsd ?? 0, e.heldDiem ?? 0, e.ref ?? null, e.note ?? null, e.at ?? Date.now()],
  );
  return id;
}

export interface Difference {
  accountId: string;
  currency: 'usd' | 'diem';
  /** The balance column as stored. */
  balance: number;
  /** What the entries and the usage rows say it should be. */
  expected: number;
}

/** Every account's balances against its entries and charges, in one read (one snapshot on PostgreSQL). */
export async function reconcile(store: Store): Promise<{ accounts: number; differences: Difference[] }> {
  const rows = await store.all<{
    id: string;
    usd: number | string;
    diem: number | string;
    e_usd: number | string;
    e_diem: number | string;
    u_usd: number | string;
    u_diem: number | string;
  }>(
    `SELECT a.id, a.usd, a.diem,
        COALESCE(e.usd, 0) AS e_usd, COALESCE(e.diem, 0) AS e_diem, COALESCE(u.usd, 0) AS u_usd, COALESCE(u.diem, 0) AS u_diem
      FROM accounts a
      LEFT JOIN (SELECT account_id, SUM(usd) AS usd, SUM(diem) AS diem FROM ledger_entries GROUP BY account_id) e ON e.account_id = a.id
      LEFT JOIN (SELECT account_id, SUM(usd + COALESCE(refunded_usd, 0)) AS usd, SUM(diem + COALESCE(refunded_diem, 0)) AS diem
                   FROM usage GROUP BY account_id) u ON u.account_id = a.id
      ORDER BY a.id`,
  );
  const differences: Difference[] = [];
  for (const r of rows) {
    const usd = Number(r.e_usd) - Number(r.u_usd);
    const diem = Number(r.e_diem) - Number(r.u_diem);
    if (usd !== Number(r.usd)) differences.push({ accountId: r.id, currency: 'usd', balance: Number(r.usd), expected: usd });
    if (diem !== Number(r.diem)) differences.push({ accountId: r.id, currency: 'diem', balance: Number(r.diem), expected: diem });
  }
  return { accounts: rows.length, differences };
}
