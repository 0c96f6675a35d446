// The usage report from this server's ledger: lib/billing/usage-query's analytics and history (the code behind
// /api/v1/billing/*), for the account of the session's user only. Every chat in the browser app and every request
// made with one of the account's API keys is a usage row, so this is exactly what the account was billed.
import { usageAnalytics, usageHistory } from './usage-query.ts';
import type { Store } from '../db/store.ts';
import type { UsagePeriod, UsageReport } from '../wire.ts';
import { addTotals, zeroTotals } from './usage-span.ts';

export const RECENT_LIMIT = 50;

/** `memberId`: in a team, only that member's usage (their keys'). */
export async function billingUsage(
  store: Store,
  accountId: string,
  days: UsagePeriod,
  span: { from: number; to: number },
  memberId?: string,
): Promise<UsageReport> {
  const [analytics, history] = await Promise.all([
    usageAnalytics(store, accountId, { ...span, memberId }),
    usageHistory(store, accountId, { ...span, memberId, page: 1, limit: RECENT_LIMIT }),
  ]);
  const totals = zeroTotals();
  for (const m of analytics.byModel) addTotals(totals, m);
  // byKey joins the key descriptions on this account's keys only, so "via" never names another account's key.
  const via = new Map(analytics.byKey.map((k) => [k.apiKeyId, k.description]));
  return {
    days,
    ...span,
    source: 'billing',
    totals,
    byDay: analytics.byDay,
    byModel: analytics.byModel,
    recent: history.rows.map((r) => ({
      at: Date.parse(r.timestamp),
      modelId: r.modelId,
      promptTokens: r.promptTokens,
      completionTokens: r.completionTokens,
      usd: r.usd,
      diem: r.diem,
      via: via.get(r.apiKeyId) ?? null,
      // Token requests keep their shape; others say what they were billed in (a JSON-RPC call: credits and methods).
      ...(r.unit !== 'token' ? { unit: r.unit, quantity: r.quantity } : {}),
      ...(r.rpc ? { rpc: r.rpc } : {}),
    })),
  };
}
