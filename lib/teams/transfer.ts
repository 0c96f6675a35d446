// Moving credit between a person's own account and a team they own: one transaction that locks both account rows
// (in id order, so two opposite transfers cannot deadlock), moves the USD and writes a 'transfer' ledger entry on each
// side. The client names the transfer with its own id: a retry of the same id moves nothing again and answers the
// same transfer, so the money moves exactly once.
import { ApiError } from '../api/errors.ts';
import { addEntry } from '../billing/entries.ts';
import type { Store } from '../db/store.ts';
import { requireRole } from './members.ts';

export interface TransferInput {
  /** The client's id for this transfer (a UUID): the key that makes a retry safe. */
  id: string;
  userId: string;
  personalAccountId: string;
  teamAccountId: string;
  direction: 'to_team' | 'to_personal';
  /** Micro-USD, more than zero. */
  usd: number;
  /** What requests in flight hold of the source account (the ledger's in-memory holds on the embedded store). */
  sourceHeldUsd: number;
}

export interface Transfer {
  id: string;
  fromAccountId: string;
  toAccountId: string;
  usd: number;
  createdAt: number;
  /** False when this id had moved the credit already (a retry). */
  moved: boolean;
}

export async function transferCredit(store: Store, t: TransferInput, now = Date.now()): Promise<Transfer> {
  if (!Number.isSafeInteger(t.usd) || t.usd <= 0) throw new ApiError('INVALID_REQUEST', 'The amount must be more than zero', { param: 'usd' });
  const [from, to] = t.direction === 'to_team' ? [t.personalAccountId, t.teamAccountId] : [t.teamAccountId, t.personalAccountId];
  return store.tx(async (q) => {
    await requireRole(q, t.teamAccountId, t.userId, 'owner');
    for (const id of [from, to].sort()) await q.get(`SELECT id FROM accounts WHERE id = $1${store.forUpdate}`, [id]);
    const earlier = await q.get<{ from_account_id: string; to_account_id: string; usd: number | string; user_id: string; created_at: number | string }>(
      'SELECT from_account_id, to_account_id, usd, user_id, created_at FROM credit_transfers WHERE id = $1',
      [t.id],
    );
    if (earlier) {
      if (earlier.from_account_id !== from || earlier.to_account_id !== to || Number(earlier.usd) !== t.usd || earlier.user_id !== t.userId)
        throw new ApiError('CONFLICT', 'This transfer id was used for another transfer');
      return { id: t.id, fromAccountId: from, toAccountId: to, usd: t.usd, createdAt: Number(earlier.created_at), moved: false };
    }
    const row = await q.get<{ usd: number | string; usd_held: number | string }>('SELECT usd, usd_held FROM accounts WHERE id = $1', [from]);
    const held = Math.max(Number(row?.usd_held ?? 0), t.sourceHeldUsd);
    if (!row || Number(row.usd) - held < t.usd) throw new ApiError('INSUFFICIENT_BALANCE', 'The account the credit comes from has less than that to spare');
    await q.run('INSERT INTO credit_transfers (id, from_account_id, to_account_id, usd, user_id, created_at) VALUES ($1, $2, $3, $4, $5, $6)', [
      t.id,
      from,
      to,
      t.usd,
      t.userId,
      now,
    ]);
    const took = await q.run('UPDATE accounts SET usd = usd - $2 WHERE id = $1 AND usd >= $2', [from, t.usd]);
    if (took !== 1) throw new ApiError('INSUFFICIENT_BALANCE');
    await q.run('UPDATE accounts SET usd = usd + $2 WHERE id = $1', [to, t.usd]);
    const note = t.direction === 'to_team' ? 'moved to the team' : 'moved to the owner’s own account';
    await addEntry(q, { accountId: from, kind: 'transfer', usd: -t.usd, ref: t.id, note, at: now });
    await addEntry(q, { accountId: to, kind: 'transfer', usd: t.usd, ref: t.id, note, at: now });
    return { id: t.id, fromAccountId: from, toAccountId: to, usd: t.usd, createdAt: now, moved: true };
  });
}
