// Time series of an account's usage for the billing charts: per UTC day and model (spend, tokens, requests) and per
// hour (requests). Like usage-query.ts, every query is a function of (store, accountId, …) filtering
// `account_id = $1` first, buckets by integer division of the ms timestamp (portable SQL), and sums micro-units in
// the database.
import type { Store } from '../db/store.ts';

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

export interface DayModelTotals {
  /** UTC day, YYYY-MM-DD. */
  date: string;
  modelId: string;
  /** Micro-units. */
  usd: number;
  diem: number;
  /** Prompt plus completion tokens (requests billed in other units add none). */
  tokens: number;
  requests: number;
}

export interface HourTotals {
  /** The hour's start, Unix ms. */
  hour: number;
  requests: number;
  /** Micro-units. */
  usd: number;
  diem: number;
}

function checkRange(from: number, to: number): void {
  if (!Number.isSafeInteger(from) || !Number.isSafeInteger(to) || from < 0 || to <= from) throw new RangeError('the range must be 0 <= from < to (ms)');
}

/** Sums per UTC day and model over [from, to) (only the pairs that have usage). */
export async function usageByDayAndModel(store: Store, accountId: string, range: { from: number; to: number }): Promise<DayModelTotals[]> {
  checkRange(range.from, range.to);
  const rows = await store.all<{ day_index: number | string; model_id: string; usd: number; diem: number; tokens: number; requests: number }>(
    `SELECT CAST(u.created_at / ${DAY_MS} AS BIGINT) AS day_index, u.model_id, SUM(u.usd) AS usd, SUM(u.diem) AS diem,
       SUM(u.prompt_tokens + u.completion_tokens) AS tokens, COUNT(*) AS requests
     FROM usage u WHERE u.account_id = $1 AND u.created_at >= $2 AND u.created_at < $3
     GROUP BY CAST(u.created_at / ${DAY_MS} AS BIGINT), u.model_id`,
    [accountId, range.from, range.to],
  );
  return rows.map((r) => ({
    date: new Date(Number(r.day_index) * DAY_MS).toISOString().slice(0, 10),
    modelId: r.model_id,
    usd: Number(r.usd),
    diem: Number(r.diem),
    tokens: Number(r.tokens),
    requests: Number(r.requests),
  }));
}

/** Every hour of [from, to) with its requests and spend, zeros included, oldest first. */
export async function usageByHour(store: Store, accountId: string, range: { from: number; to: number }): Promise<HourTotals[]> {
  checkRange(range.from, range.to);
  const rows = await store.all<{ hour_index: number | string; requests: number; usd: number; diem: number }>(
    `SELECT CAST(u.created_at / ${HOUR_MS} AS BIGINT) AS hour_index, COUNT(*) AS requests, SUM(u.usd) AS usd, SUM(u.diem) AS diem
     FROM usage u WHERE u.account_id = $1 AND u.created_at >= $2 AND u.created_at < $3
     GROUP BY CAST(u.created_at / ${HOUR_MS} AS BIGINT)`,
    [accountId, range.from, range.to],
  );
  const byHour = new Map(rows.map((r) => [Number(r.hour_index), r]));
  const out: HourTotals[] = [];
  for (let h = Math.floor(range.from / HOUR_MS), last = Math.floor((range.to - 1) / HOUR_MS); h <= last; h++) {
    const r = byHour.get(h);
    out.push({ hour: h * HOUR_MS, requests: Number(r?.requests ?? 0), usd: Number(r?.usd ?? 0), diem: Number(r?.diem ?? 0) });
  }
  return out;
}

export interface DayKeyTotals {
  /** UTC day, YYYY-MM-DD. */
  date: string;
  /** null: usage without a key. */
  apiKeyId: string | null;
  /** Micro-units. */
  usd: number;
  diem: number;
  /** Units of every kind billed, added up. */
  quantity: number;
}

/** Sums per UTC day and key over [from, to) (only the pairs that have usage). */
export async function usageByDayAndKey(store: Store, accountId: string, range: { from: number; to: number }): Promise<DayKeyTotals[]> {
  checkRange(range.from, range.to);
  const rows = await store.all<{ day_index: number | string; key_id: string | null; usd: number; diem: number; quantity: number }>(
    `SELECT CAST(u.created_at / ${DAY_MS} AS BIGINT) AS day_index, u.key_id, SUM(u.usd) AS usd, SUM(u.diem) AS diem, SUM(u.quantity) AS quantity
     FROM usage u WHERE u.account_id = $1 AND u.created_at >= $2 AND u.created_at < $3
     GROUP BY CAST(u.created_at / ${DAY_MS} AS BIGINT), u.key_id`,
    [accountId, range.from, range.to],
  );
  return rows.map((r) => ({
    date: new Date(Number(r.day_index) * DAY_MS).toISOString().slice(0, 10),
    apiKeyId: r.key_id,
    usd: Number(r.usd),
    diem: Number(r.diem),
    quantity: Number(r.quantity),
  }));
}
