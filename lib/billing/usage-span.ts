// The usage dashboard's period: the last 7, 30 or 90 UTC days (today included, so the chart's bars are whole days
// plus today so far), and the sums shared by the ledger and chat-history reports.
import { ApiError } from '../api/errors.ts';
import { USAGE_PERIODS, type UsagePeriod, type UsageTotals } from '../wire.ts';

const DAY_MS = 86_400_000;
export const DEFAULT_PERIOD: UsagePeriod = 30;

/** `days` from the query string: absent means 30; anything but 7, 30 or 90 is a 400. */
export function periodOf(raw: string | null): UsagePeriod {
  if (raw === null || raw === '') return DEFAULT_PERIOD;
  const days = Number(raw);
  const found = USAGE_PERIODS.find((p) => p === days);
  if (found === undefined || !/^\d+$/.test(raw)) throw new ApiError('INVALID_REQUEST', `days must be one of ${USAGE_PERIODS.join(', ')}`, { param: 'days' });
  return found;
}

/** [from, to) in ms: from 00:00 UTC `days - 1` days ago up to and including `now`. */
export function spanOf(days: UsagePeriod, now: number): { from: number; to: number } {
  const today = Math.floor(now / DAY_MS);
  return { from: (today - (days - 1)) * DAY_MS, to: now + 1 };
}

/** Every UTC day of the span, oldest first (YYYY-MM-DD). */
export function daysOf(span: { from: number; to: number }): string[] {
  const out: string[] = [];
  for (let d = Math.floor(span.from / DAY_MS), last = Math.floor((span.to - 1) / DAY_MS); d <= last; d++)
    out.push(new Date(d * DAY_MS).toISOString().slice(0, 10));
  return out;
}

export const dayOf = (ms: number): string => new Date(Math.floor(ms / DAY_MS) * DAY_MS).toISOString().slice(0, 10);

export const zeroTotals = (): UsageTotals => ({ requests: 0, promptTokens: 0, completionTokens: 0, usd: 0, diem: 0 });

// Amounts arrive as floats of whole micro-units; rounding each sum to 6 places keeps 0.1 + 0.2 from showing.
const micro = (v: number) => Math.round(v * 1e6) / 1e6;

/** Adds `b` into `a` (amounts kept at micro-unit precision). */
export function addTotals(a: UsageTotals, b: UsageTotals): UsageTotals {
  a.requests += b.requests;
  a.promptTokens += b.promptTokens;
  a.completionTokens += b.completionTokens;
  a.usd = micro(a.usd + b.usd);
  a.diem = micro(a.diem + b.diem);
  return a;
}
