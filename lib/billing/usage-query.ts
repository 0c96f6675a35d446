// Reading an account's usage rows: the paginated history and the analytics totals behind /billing/*. Every query is
// a function of (store, accountId, …) and its SQL filters `account_id = $1` first, so no caller can read another
// account's usage by passing the wrong filter. The SQL is the portable subset SQLite and PostgreSQL both accept;
// days are bucketed by integer division of the ms timestamp (UTC days), not by engine-specific date functions.
// Amounts are summed in integer micro-units by the database and converted to USD/DIEM numbers once, at the end.
import { networkOfModelId, type RpcUsage, rpcUsageOf, rpcUsageTotals } from './rpc-usage.ts';
import type { Param, Store } from '../db/store.ts';
import { fromMicros } from './money.ts';
import type { Unit } from './pricing.ts';

const DAY_MS = 86_400_000;

/** One usage row as the API shows it (amounts in USD and DIEM). */
export interface UsageRow {
  /** When the request was settled (ISO 8601, UTC). */
  timestamp: string;
  requestId: string;
  apiKeyId: string | null;
  modelId: string;
  endpoint: string;
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
  /** Web searches and scraped URLs billed with the request. */
  searches: number;
  scrapedUrls: number;
  usd: number;
  diem: number;
  /** The unit the request was billed in (token, image, character, second, rpc_credit, call) and how many. */
  unit: Unit;
  quantity: number;
  /** A JSON-RPC proxy call: its network and, per method, calls, credits and error answers. */
  rpc?: RpcUsage;
}

export interface HistoryQuery {
  /** Inclusive lower bound (ms). */
  from?: number;
  /** Exclusive upper bound (ms). */
  to?: number;
  keyId?: string;
  modelId?: string;
  /** In a team: only the charges of this member's keys. */
  memberId?: string;
  /** 1-based. */
  page: number;
  limit: number;
}

export interface UsageDbRow {
  request_id: string;
  key_id: string | null;
  model_id: string;
  endpoint: string;
  prompt_tokens: number;
  completion_tokens: number;
  cached_tokens: number;
  searches: number;
  scraped_urls: number;
  unit: Unit;
  quantity: number;
  usd: number;
  diem: number;
  created_at: number;
}

export const toUsageRow = (r: UsageDbRow): UsageRow => ({
  timestamp: new Date(Number(r.created_at)).toISOString(),
  requestId: r.request_id,
  apiKeyId: r.key_id,
  modelId: r.model_id,
  endpoint: r.endpoint,
  promptTokens: Number(r.prompt_tokens),
  completionTokens: Number(r.completion_tokens),
  cachedTokens: Number(r.cached_tokens),
  searches: Number(r.searches),
  scrapedUrls: Number(r.scraped_urls),
  usd: fromMicros(Number(r.usd)),
  diem: fromMicros(Number(r.diem)),
  unit: r.unit,
  quantity: Number(r.quantity),
});

/** A team member's charges: those of the keys made by or for them, of this account ($1) only. */
export const MEMBER_KEYS = 'u.key_id IN (SELECT mk.id FROM api_keys mk WHERE mk.account_id = $1 AND mk.member_id = ?)';

/** The WHERE clause of a history query; the account is always `$1`. */
function historyFilter(accountId: string, q: Omit<HistoryQuery, 'page' | 'limit'>): { where: string; params: Param[] } {
  const params: Param[] = [accountId];
  const clauses = ['account_id = $1'];
  const add = (sql: string, value: Param) => {
    params.push(value);
    clauses.push(sql.replace('?', `$${params.length}`));
  };
  if (q.from !== undefined) add('created_at >= ?', q.from);
  if (q.to !== undefined) add('created_at < ?', q.to);
  if (q.keyId !== undefined) add('key_id = ?', q.keyId);
  if (q.modelId !== undefined) add('model_id = ?', q.modelId);
  if (q.memberId !== undefined) add(MEMBER_KEYS.replace('u.key_id', 'key_id'), q.memberId);
  return { where: clauses.join(' AND '), params };
}

/** One page of the account's usage, newest first, and how many rows match in all. */
export async function usageHistory(store: Store, accountId: string, q: HistoryQuery): Promise<{ rows: UsageRow[]; total: number }> {
  if (!Number.isSafeInteger(q.page) || q.page < 1) throw new RangeError('page must be an integer of at least 1');
  if (!Number.isSafeInteger(q.limit) || q.limit < 1) throw new RangeError('limit must be an integer of at least 1');
  const { where, params } = historyFilter(accountId, q);
  const counted = await store.get<{ n: number }>(`SELECT COUNT(*) AS n FROM usage WHERE ${where}`, params);
  const total = Number(counted?.n ?? 0);
  const offset = (q.page - 1) * q.limit;
  if (offset >= total) return { rows: [], total };
  // request_id breaks ties between rows of the same millisecond, so pages never overlap or skip a row.
  const rows = await store.all<UsageDbRow>(
    `SELECT request_id, key_id, model_id, endpoint, prompt_tokens, completion_tokens, cached_tokens, searches, scraped_urls, unit, quantity, usd, diem, created_at
     FROM usage WHERE ${where}
     ORDER BY created_at DESC, request_id DESC
     LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
    [...params, q.limit, offset],
  );
  const out = rows.map(toUsageRow);
  // JSON-RPC proxy calls say what they were (network, methods) from their detail rows.
  const rpcIds = out.filter((r) => r.unit === 'rpc_credit').map((r) => r.requestId);
  if (rpcIds.length > 0) {
    const detail = await rpcUsageOf(store, accountId, rpcIds);
    for (const r of out) if (detail.has(r.requestId)) r.rpc = detail.get(r.requestId);
  }
  return { rows: out, total };
}

export interface DayTotals {
  /** UTC day, YYYY-MM-DD. */
  date: string;
  usd: number;
  diem: number;
  requests: number;
  promptTokens: number;
  completionTokens: number;
}

export interface ModelTotals {
  modelId: string;
  usd: number;
  diem: number;
  requests: number;
  promptTokens: number;
  completionTokens: number;
  /** The unit the model's requests were billed in, and how many (a model billed in two units has a row for each). */
  unit: Unit;
  quantity: number;
  /** The JSON-RPC proxy's network (model `rpc:<network>`) and its methods' totals. */
  rpc?: RpcUsage;
}

export interface UnitTotals {
  unit: Unit;
  quantity: number;
  usd: number;
  diem: number;
  requests: number;
}

export interface KeyTotals {
  apiKeyId: string | null;
  /** The key's description; null when the row has no key or the key is gone. */
  description: string | null;
  usd: number;
  diem: number;
  requests: number;
}

export interface UsageAnalytics {
  byDay: DayTotals[];
  byModel: ModelTotals[];
  byKey: KeyTotals[];
  /** Totals by billing unit (by spend). */
  byUnit: UnitTotals[];
}

interface SumsRow {
  usd: number;
  diem: number;
  requests: number;
  prompt_tokens: number;
  completion_tokens: number;
}

const SUMS =
  'SUM(u.usd) AS usd, SUM(u.diem) AS diem, COUNT(*) AS requests, SUM(u.prompt_tokens) AS prompt_tokens, SUM(u.completion_tokens) AS completion_tokens';

// PostgreSQL returns SUM(BIGINT) as NUMERIC; the store parses it, and Number() covers SQLite's integers alike.
const sums = (r: SumsRow) => ({
  usd: Number(r.usd),
  diem: Number(r.diem),
  requests: Number(r.requests),
  promptTokens: Number(r.prompt_tokens),
  completionTokens: Number(r.completion_tokens),
});

// Spend is USD plus DIEM (1 DIEM buys 1 USD of inference); ties go to the busier group, then by name, so the
// order is deterministic.
function bySpend<T extends { usd: number; diem: number; requests: number }>(key: (t: T) => string): (a: T, b: T) => number {
  return (a, b) => b.usd + b.diem - (a.usd + a.diem) || b.requests - a.requests || (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0);
}

/** Totals by UTC day (every day of [from, to), zeros included, ascending), by model and by key (by spend). */
export async function usageAnalytics(store: Store, accountId: string, range: { from: number; to: number; memberId?: string }): Promise<UsageAnalytics> {
  const { from, to } = range;
  if (!Number.isSafeInteger(from) || !Number.isSafeInteger(to) || from < 0 || to <= from) throw new RangeError('the range must be 0 <= from < to (ms)');
  const params: Param[] = [accountId, from, to];
  let where = 'u.account_id = $1 AND u.created_at >= $2 AND u.created_at < $3';
  if (range.memberId !== undefined) {
    params.push(range.memberId);
    where += ` AND ${MEMBER_KEYS.replace('?', '$4')}`;
  }

  const dayRows = await store.all<SumsRow & { day_index: number }>(
    `SELECT CAST(u.created_at / ${DAY_MS} AS BIGINT) AS day_index, ${SUMS}
     FROM usage u WHERE ${where}
     GROUP BY CAST(u.created_at / ${DAY_MS} AS BIGINT)`,
    params,
  );
  const modelRows = await store.all<SumsRow & { model_id: string; unit: Unit; quantity: number }>(
    `SELECT u.model_id, u.unit, SUM(u.quantity) AS quantity, ${SUMS} FROM usage u WHERE ${where} GROUP BY u.model_id, u.unit`,
    params,
  );
  const unitRows = await store.all<SumsRow & { unit: Unit; quantity: number }>(
    `SELECT u.unit, SUM(u.quantity) AS quantity, ${SUMS} FROM usage u WHERE ${where} GROUP BY u.unit`,
    params,
  );
  // The join repeats the account condition so a key id can only ever resolve to this account's key.
  const keyRows = await store.all<Omit<SumsRow, 'prompt_tokens' | 'completion_tokens'> & { key_id: string | null; description: string | null }>(
    `SELECT u.key_id, k.description, SUM(u.usd) AS usd, SUM(u.diem) AS diem, COUNT(*) AS requests
     FROM usage u LEFT JOIN api_keys k ON k.id = u.key_id AND k.account_id = u.account_id
     WHERE ${where}
     GROUP BY u.key_id, k.description`,
    params,
  );

  const perDay = new Map(dayRows.map((r) => [Number(r.day_index), sums(r)]));
  const byDay: DayTotals[] = [];
  for (let day = Math.floor(from / DAY_MS), last = Math.floor((to - 1) / DAY_MS); day <= last; day++) {
    const s = perDay.get(day) ?? { usd: 0, diem: 0, requests: 0, promptTokens: 0, completionTokens: 0 };
    byDay.push({ date: new Date(day * DAY_MS).toISOString().slice(0, 10), ...s, usd: fromMicros(s.usd), diem: fromMicros(s.diem) });
  }

  const byModel: ModelTotals[] = modelRows
    .map((r) => ({ modelId: r.model_id, ...sums(r), unit: r.unit, quantity: Number(r.quantity) }))
    .sort(bySpend((t) => `${t.modelId}\u0000${t.unit}`))
    .map((t) => ({ ...t, usd: fromMicros(t.usd), diem: fromMicros(t.diem) }));

  const byKey: KeyTotals[] = keyRows
    .map((r) => ({ apiKeyId: r.key_id, description: r.description ?? null, usd: Number(r.usd), diem: Number(r.diem), requests: Number(r.requests) }))
    .sort(bySpend((t) => t.apiKeyId ?? ''))
    .map((t) => ({ ...t, usd: fromMicros(t.usd), diem: fromMicros(t.diem) }));

  const byUnit: UnitTotals[] = unitRows
    .map((r) => ({ unit: r.unit, quantity: Number(r.quantity), usd: Number(r.usd), diem: Number(r.diem), requests: Number(r.requests) }))
    .sort(bySpend((t) => t.unit))
    .map((t) => ({ ...t, usd: fromMicros(t.usd), diem: fromMicros(t.diem) }));

  if (byModel.some((m) => m.unit === 'rpc_credit')) {
    const methods = await rpcUsageTotals(store, accountId, { from, to });
    for (const m of byModel) {
      const network = m.unit === 'rpc_credit' ? networkOfModelId(m.modelId) : undefined;
      if (network !== undefined) m.rpc = { network, methods: methods.get(network) ?? [] };
    }
  }

  return { byDay, byModel, byKey, byUnit };
}
