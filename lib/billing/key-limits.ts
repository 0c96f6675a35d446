// Per-key consumption limits. A key may cap what it spends in USD and in DIEM per period: EPOCH (a UTC day),
// MONTH (a UTC calendar month) or LIFETIME. Settlement keeps the key's spend for its current period in the
// api_keys row, so admission checks a limit with one read.
import type { Queryable } from '../db/store.ts';
import type { HeldAmount } from './holds.ts';
import { microsToString } from './money.ts';

/** EPOCH (a UTC day), WEEK (from Monday 00:00 UTC; Lagoon's own, not the public API's), MONTH, LIFETIME. */
export type LimitPeriod = 'EPOCH' | 'WEEK' | 'MONTH' | 'LIFETIME';

export interface KeyLimit {
  keyId: string;
  /** Micro-units per period; null = no cap. */
  usd: number | null;
  diem: number | null;
  period: LimitPeriod;
}

/** The period a moment belongs to, as stored in api_keys.spent_period. */
export function periodKey(period: string, now: number): string {
  if (period === 'LIFETIME') return 'LIFETIME';
  const k = periodsOfDay(now);
  return period === 'EPOCH' ? k.day : period === 'WEEK' ? k.week : period === 'MONTH' ? k.month : 'LIFETIME';
}

/** Every settlement names its key's periods: worked out once per UTC day, not with three date formats per call. */
let dayCache: { day: number; keys: { day: string; week: string; month: string } } | undefined;

function periodsOfDay(now: number): { day: string; week: string; month: string } {
  const day = Math.floor(now / 86_400_000);
  if (dayCache?.day === day) return dayCache.keys;
  const iso = new Date(now).toISOString();
  // The week's Monday: a UTC day's weekday is 0 on Sunday.
  const weekday = new Date(now).getUTCDay();
  const keys = { day: iso.slice(0, 10), week: `W${new Date(now - ((weekday + 6) % 7) * 86_400_000).toISOString().slice(0, 10)}`, month: iso.slice(0, 7) };
  dayCache = { day, keys };
  return keys;
}

/** Adds a settled charge to the key's spend for its current period (starting the period afresh when it changed). */
export async function addKeySpend(q: Queryable, keyId: string, charged: HeldAmount, now: number): Promise<void> {
  const { day, month, week } = periodsOfDay(now);
  const current = `(CASE limit_period WHEN 'EPOCH' THEN $2 WHEN 'MONTH' THEN $3 WHEN 'WEEK' THEN $6 ELSE 'LIFETIME' END)`;
  await q.run(
    `UPDATE api_keys SET
       spent_usd = (CASE WHEN spent_period = ${current} THEN spent_usd ELSE 0 END) + $4,
       spent_diem = (CASE WHEN spent_period = ${current} THEN spent_diem ELSE 0 END) + $5,
       spent_period = ${current}
     WHERE id = $1`,
    [keyId, day, month, charged.usd, charged.diem, week],
  );
}

/** What the key has spent in its current period. */
export async function keySpent(q: Queryable, limit: KeyLimit, now: number): Promise<HeldAmount> {
  const row = await q.get<{ spent_usd: number; spent_diem: number; spent_period: string }>(
    'SELECT spent_usd, spent_diem, spent_period FROM api_keys WHERE id = $1',
    [limit.keyId],
  );
  if (!row || row.spent_period !== periodKey(limit.period, now)) return { usd: 0, diem: 0 };
  return { usd: row.spent_usd, diem: row.spent_diem };
}

const PERIOD_WORDS: Record<LimitPeriod, string> = {
  EPOCH: 'per day (EPOCH, resets 00:00 UTC)',
  WEEK: 'per week (resets Monday 00:00 UTC)',
  MONTH: 'per month',
  LIFETIME: 'for its lifetime',
};

export function limitMessage(currency: 'USD' | 'DIEM', limit: KeyLimit): string {
  const cap = currency === 'USD' ? limit.usd : limit.diem;
  return `This API key has reached its ${currency} consumption limit of ${microsToString(cap ?? 0)} ${currency} ${PERIOD_WORDS[limit.period]}.`;
}
