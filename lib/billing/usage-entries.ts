// The usage history in the public API's cursor form: ledger entries, oldest first, one per usage row and currency
// it was paid in (a request paid partly in DIEM and partly in USD is two entries, each with its share of the units).
// Pages are keyset ranges on (created_at, request_id, currency), never OFFSET, so a page costs the same wherever it
// starts and rows settled meanwhile never shift a page. The cursor (usage-cursor.ts) carries the position and the
// filters. Like usage-query.ts, every query filters `account_id = $1` first.
import type { Param, Store } from '../db/store.ts';
import type { Unit } from './pricing.ts';
import type { UsageDbRow } from './usage-query.ts';

/** Currencies the public API names; this server debits only USD and DIEM, so the credit kinds have no entries. */
export const ENTRY_CURRENCIES = ['USD', 'DIEM', 'BUNDLED_CREDITS', 'EARNED_CREDITS'] as const;
export type EntryCurrency = (typeof ENTRY_CURRENCIES)[number];
type PaidIn = 'USD' | 'DIEM';

/** Where a page ends: the last entry given (its row and currency). */
export interface EntryPosition {
  createdAt: number;
  requestId: string;
  currency: PaidIn;
}

export interface EntryFilter {
  /** Inclusive (ms). */
  from?: number;
  /** Exclusive (ms). */
  to?: number;
  currency?: EntryCurrency;
}

export interface UsageEntry {
  timestamp: string;
  /** `<model>-<kind>`, e.g. `llama-3-8b-llm-mtoken`. */
  sku: string;
  /** In the SKU's unit: millions of tokens, images, thousands of characters, seconds, RPC credits, calls. */
  units: number;
  pricePerUnitUsd: number;
  /** Negative: a debit. */
  amount: number;
  currency: PaidIn;
  notes: string;
  inferenceDetails: { requestId: string; promptTokens: number | null; completionTokens: number | null; inferenceExecutionTime: number | null };
}

// The SKU's unit and how many of the row's quantity make one. Tokens are counted in millions, as the public SKUs are.
const SKU: Record<Unit, { kind: string; per: number }> = {
  token: { kind: 'llm-mtoken', per: 1_000_000 },
  image: { kind: 'image', per: 1 },
  character: { kind: 'tts-kchar', per: 1_000 },
  second: { kind: 'second', per: 1 },
  rpc_credit: { kind: 'rpc-credit', per: 1 },
  call: { kind: 'call', per: 1 },
};

const round = (n: number, places: number) => Math.round(n * 10 ** places) / 10 ** places;

type EntryRow = Pick<UsageDbRow, 'request_id' | 'model_id' | 'prompt_tokens' | 'completion_tokens' | 'unit' | 'quantity' | 'usd' | 'diem' | 'created_at'>;

/** A usage row's entries: one per currency it was paid in (a free request: one USD entry of 0). */
export function entriesOf(r: EntryRow, currency?: EntryCurrency): { currency: PaidIn; entry: UsageEntry }[] {
  const usd = Number(r.usd);
  const diem = Number(r.diem);
  const total = usd + diem;
  const parts: [PaidIn, number][] = [];
  if ((currency === undefined || currency === 'USD') && (usd > 0 || (total === 0 && currency === undefined))) parts.push(['USD', usd]);
  if ((currency === undefined || currency === 'DIEM') && diem > 0) parts.push(['DIEM', diem]);
  const unit = r.unit in SKU ? r.unit : 'call';
  const units = Number(r.quantity) / SKU[unit].per;
  const tokens = unit === 'token';
  return parts.map(([paidIn, micros]) => {
    // Each entry carries its share of the units, so units x price = amount for every entry.
    const share = total > 0 ? micros / total : 1;
    return {
      currency: paidIn,
      entry: {
        timestamp: new Date(Number(r.created_at)).toISOString(),
        sku: `${r.model_id}-${SKU[unit].kind}`,
        units: round(units * share, 9),
        pricePerUnitUsd: units > 0 ? round(total / 1e6 / units, 8) : 0,
        amount: -micros / 1e6,
        currency: paidIn,
        notes: 'API Inference',
        inferenceDetails: {
          requestId: r.request_id,
          promptTokens: tokens ? Number(r.prompt_tokens) : null,
          completionTokens: tokens ? Number(r.completion_tokens) : null,
          inferenceExecutionTime: null,
        },
      },
    };
  });
}

const ORDER: PaidIn[] = ['USD', 'DIEM'];

/** One page of entries, oldest first, after `after` (exclusive); `next` is set when more follow. */
export async function usageEntries(
  store: Store,
  accountId: string,
  q: EntryFilter & { pageSize: number; after?: EntryPosition },
): Promise<{ data: UsageEntry[]; next?: EntryPosition }> {
  if (!Number.isSafeInteger(q.pageSize) || q.pageSize < 1) throw new RangeError('pageSize must be a positive integer');
  if (q.currency === 'BUNDLED_CREDITS' || q.currency === 'EARNED_CREDITS') return { data: [] };
  const params: Param[] = [accountId];
  const clauses = ['account_id = $1'];
  const add = (sql: string, ...values: Param[]) => {
    let text = sql;
    for (const v of values) {
      params.push(v);
      text = text.replace('?', `$${params.length}`);
    }
    clauses.push(text);
  };
  if (q.from !== undefined) add('created_at >= ?', q.from);
  if (q.to !== undefined) add('created_at < ?', q.to);
  // Ids compare bytewise in both databases (PostgreSQL would otherwise use the locale's order), as they do in isAfter.
  const id = store.kind === 'postgres' ? 'request_id COLLATE "C"' : 'request_id';
  if (q.currency === 'USD') clauses.push('usd > 0');
  if (q.currency === 'DIEM') clauses.push('diem > 0');
  // The row the last page ended in is read again: its other currency may still be due.
  if (q.after) add(`(created_at > ? OR (created_at = ? AND ${id} >= ?))`, q.after.createdAt, q.after.createdAt, q.after.requestId);
  // Every row gives at least one entry, so pageSize + 2 rows (one may be the last page's) tell whether more follow.
  params.push(q.pageSize + 2);
  const rows = await store.all<EntryRow>(
    `SELECT request_id, model_id, prompt_tokens, completion_tokens, unit, quantity, usd, diem, created_at
     FROM usage WHERE ${clauses.join(' AND ')}
     ORDER BY created_at ASC, ${id} ASC
     LIMIT $${params.length}`,
    params,
  );
  const data: UsageEntry[] = [];
  let last: EntryPosition | undefined;
  for (const r of rows) {
    for (const { currency, entry } of entriesOf(r, q.currency)) {
      const at = { createdAt: Number(r.created_at), requestId: r.request_id, currency };
      if (q.after && !isAfter(at, q.after)) continue;
      if (data.length === q.pageSize) return { data, next: last };
      data.push(entry);
      last = at;
    }
  }
  return { data };
}

function isAfter(a: EntryPosition, b: EntryPosition): boolean {
  if (a.createdAt !== b.createdAt) return a.createdAt > b.createdAt;
  if (a.requestId !== b.requestId) return a.requestId > b.requestId;
  return ORDER.indexOf(a.currency) > ORDER.indexOf(b.currency);
}
