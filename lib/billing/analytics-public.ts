// GET /billing/usage-analytics in the public API's shape: totals by date, model and key, and the daily series the
// public charts read (one object per day, keyed by the top models' and keys' names, the rest summed as "Other").
// Built from the same sums as the spec's shape (usage-query.ts, usage-series.ts); nothing is queried here.
import { fromMicros } from './money.ts';
import type { Unit } from './pricing.ts';
import type { KeyTotals, UsageAnalytics } from './usage-query.ts';
import type { DayKeyTotals, DayModelTotals } from './usage-series.ts';

/** How many models and keys the daily series name; the rest are one "Other" series (the public API names 8). */
export const ANALYTICS_TOP = 8;
const OTHER = 'Other';

// The public unit names; RPC credits and per-call fees have none there, so they keep this server's names.
const UNIT_TYPE: Record<Unit, string> = { token: 'tokens', image: 'images', character: 'chars', second: 'seconds', rpc_credit: 'credits', call: 'calls' };

export type PublicModelType = 'LLM' | 'IMAGE' | 'TTS' | 'ASR' | 'VIDEO' | null;

export interface PublicAnalyticsInput {
  /** `7d`, or `<startDate>:<endDate>` when dates were given. */
  lookback: string;
  totals: UsageAnalytics;
  byDayModel: DayModelTotals[];
  byDayKey: DayKeyTotals[];
  /** The catalogue's kind of a model id (null: not in the catalogue, or embeddings). */
  modelType: (modelId: string) => PublicModelType;
}

/** A key's name in the series: its description, else its id (usage without a key: "No key"). */
export const keyName = (k: Pick<KeyTotals, 'apiKeyId' | 'description'>): string => k.description || k.apiKeyId || 'No key';

/** Per day (Unix ms), each named series' amount in one currency; series outside `top` add up under "Other". */
function daily<T extends { date: string; usd: number; diem: number }>(
  days: string[],
  rows: T[],
  name: (r: T) => string,
  top: string[],
  currency: 'usd' | 'diem',
): Record<string, number>[] {
  const named = new Set(top);
  const byDay = new Map<string, Record<string, number>>();
  for (const d of days) {
    const entry: Record<string, number> = { date: Date.parse(`${d}T00:00:00Z`) };
    for (const t of top) entry[t] = 0;
    byDay.set(d, entry);
  }
  for (const r of rows) {
    const entry = byDay.get(r.date);
    if (!entry) continue;
    const series = named.has(name(r)) ? name(r) : OTHER;
    // Sums stay in micro-units until the end, so the series add up exactly.
    entry[series] = (entry[series] ?? 0) + r[currency];
  }
  return [...byDay.values()].map((e) => Object.fromEntries(Object.entries(e).map(([k, v]) => [k, k === 'date' ? v : fromMicros(v)])));
}

export function publicAnalytics(i: PublicAnalyticsInput) {
  const { totals } = i;
  const days = totals.byDay.map((d) => d.date);
  const topModels = [...new Set(totals.byModel.map((m) => m.modelId))].slice(0, ANALYTICS_TOP);
  const topKeyNames = [...new Set(totals.byKey.map(keyName))].slice(0, ANALYTICS_TOP);
  const names = new Map(totals.byKey.map((k) => [k.apiKeyId, keyName(k)]));
  const dayKeys = i.byDayKey.map((r) => ({ ...r, name: names.get(r.apiKeyId) ?? keyName({ apiKeyId: r.apiKeyId, description: null }) }));
  const keyUnits = new Map<string | null, number>();
  for (const r of i.byDayKey) keyUnits.set(r.apiKeyId, (keyUnits.get(r.apiKeyId) ?? 0) + r.quantity);
  return {
    lookback: i.lookback,
    byDate: totals.byDay.map((d) => ({ date: d.date, USD: d.usd, DIEM: d.diem })),
    byModel: totals.byModel.map((m) => ({
      modelName: m.modelId,
      unitType: UNIT_TYPE[m.unit] ?? m.unit,
      modelType: i.modelType(m.modelId),
      totalUsd: m.usd,
      totalDiem: m.diem,
      totalUnits: m.quantity,
    })),
    byModelDaily: daily(days, i.byDayModel, (r) => r.modelId, topModels, 'diem'),
    byModelDailyUsd: daily(days, i.byDayModel, (r) => r.modelId, topModels, 'usd'),
    topModels,
    byKey: totals.byKey.map((k) => ({
      apiKeyId: k.apiKeyId,
      description: keyName(k),
      totalUsd: k.usd,
      totalDiem: k.diem,
      totalUnits: keyUnits.get(k.apiKeyId) ?? 0,
    })),
    byKeyDaily: daily(days, dayKeys, (r) => r.name, topKeyNames, 'diem'),
    byKeyDailyUsd: daily(days, dayKeys, (r) => r.name, topKeyNames, 'usd'),
    topKeyNames,
  };
}

/** The public `lookback` (`7d`, at most the given days) as a number of days; undefined when malformed. */
export function lookbackDays(raw: string, max: number): number | undefined {
  const m = /^([1-9]\d{0,5})d$/.exec(raw);
  return m ? Math.min(Number(m[1]), max) : undefined;
}
