// A wallet's statement: top-ups (and payments made for one request, with its id), operator grants and charges, newest first, each with the balance it left. Balances
// are worked back from the current one, so they need no column of their own: every change to an account's USD is a
// settled top-up, a grant or a usage row.
import type { Store } from '../db/store.ts';
import type { Wallet } from './wallets.ts';

export interface StatementEntry {
  id: string;
  type: 'TOP_UP' | 'GRANT' | 'CHARGE';
  /** Signed micro-USD. */
  amount: number;
  /** The USD balance right after this entry (micro-USD). */
  balanceAfter: number;
  createdAt: number;
  requestId: string | null;
  modelId: string | null;
  transaction: string | null;
  network: string | null;
  /** An auto top-up (auto-topup-runner.ts). */
  auto: boolean;
}

interface EntryRow {
  type: StatementEntry['type'];
  id: string;
  amount: number;
  created_at: number;
  request_id: string | null;
  model_id: string | null;
  tx_hash: string | null;
  network: string | null;
  origin: string | null;
}

const ENTRIES = `
  SELECT 'TOP_UP' AS type, id, amount, updated_at AS created_at, request_id, NULL AS model_id, tx_hash, network, origin
    FROM x402_topups WHERE wallet_id = $1 AND status = 'settled'
  UNION ALL
  SELECT 'CHARGE', request_id, -usd, created_at, request_id, model_id, NULL, NULL, NULL FROM usage WHERE account_id = $2
  UNION ALL
  SELECT 'GRANT', id, usd, created_at, NULL, NULL, NULL, NULL, NULL FROM credit_grants WHERE account_id = $2`;
const NEWEST_FIRST = 'ORDER BY created_at DESC, id DESC';

export async function walletStatement(
  store: Store,
  wallet: Wallet,
  page: { limit: number; offset: number },
): Promise<{ balance: number; entries: StatementEntry[]; hasMore: boolean }> {
  // One transaction, so the balance and the entries are read at the same point.
  return store.tx(async (q) => {
    const account = await q.get<{ usd: number }>('SELECT usd FROM accounts WHERE id = $1', [wallet.accountId]);
    const balance = Number(account?.usd ?? 0);
    const rows = await q.all<EntryRow>(`SELECT * FROM (${ENTRIES}) e ${NEWEST_FIRST} LIMIT $3 OFFSET $4`, [
      wallet.id,
      wallet.accountId,
      page.limit + 1,
      page.offset,
    ]);
    const newer = page.offset
      ? await q.get<{ total: number | null }>(`SELECT SUM(amount) AS total FROM (SELECT amount FROM (${ENTRIES}) e ${NEWEST_FIRST} LIMIT $3) n`, [
          wallet.id,
          wallet.accountId,
          page.offset,
        ])
      : undefined;
    let after = balance - Number(newer?.total ?? 0);
    const entries = rows.slice(0, page.limit).map((r) => {
      const entry: StatementEntry = {
        id: r.id,
        type: r.type,
        amount: Number(r.amount),
        balanceAfter: after,
        createdAt: Number(r.created_at),
        requestId: r.request_id,
        modelId: r.model_id,
        transaction: r.tx_hash,
        network: r.network,
        auto: r.origin === 'auto',
      };
      after -= entry.amount;
      return entry;
    });
    return { balance, entries, hasMore: rows.length > page.limit };
  });
}
