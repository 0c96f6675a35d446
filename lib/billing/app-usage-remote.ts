// The usage report in remote inference mode: the external provider bills the operator's key, so this server's ledger
// has no rows for the user. What it does have is the usage the provider reported for each answer, stored on the
// user's own messages (conversations.user_id = the session user); a deleted chat takes its usage with it.
import type { Store } from '../db/store.ts';
import { toAppUsage } from '../conversations/message.ts';
import type { UsageModel, UsagePeriod, UsageReport, UsageRequest } from '../wire.ts';
import { addTotals, dayOf, daysOf, zeroTotals } from './usage-span.ts';
import { RECENT_LIMIT } from './app-usage-ledger.ts';

interface Row {
  model_id: string | null;
  usage: string;
  created_at: number | string;
}

export async function chatUsage(store: Store, userId: string, days: UsagePeriod, span: { from: number; to: number }): Promise<UsageReport> {
  const rows = await store.all<Row>(
    `SELECT m.model_id, m.usage, m.created_at FROM messages m JOIN conversations c ON c.id = m.conversation_id
     WHERE c.user_id = $1 AND m.role = 'assistant' AND m.usage IS NOT NULL AND m.created_at >= $2 AND m.created_at < $3
     ORDER BY m.created_at DESC, m.id DESC`,
    [userId, span.from, span.to],
  );
  const totals = zeroTotals();
  const byDay = new Map(daysOf(span).map((date) => [date, { date, ...zeroTotals() }]));
  const byModel = new Map<string, UsageModel>();
  const recent: UsageRequest[] = [];
  for (const r of rows) {
    let parsed: Record<string, unknown> | null;
    try {
      parsed = JSON.parse(r.usage) as Record<string, unknown>;
    } catch {
      continue;
    }
    const u = toAppUsage(parsed);
    if (!u) continue;
    const at = Number(r.created_at);
    const modelId = r.model_id ?? 'unknown';
    const one = { requests: 1, promptTokens: u.promptTokens, completionTokens: u.completionTokens, usd: u.costUsd, diem: u.costDiem };
    addTotals(totals, one);
    const day = byDay.get(dayOf(at));
    if (day) addTotals(day, one);
    let model = byModel.get(modelId);
    if (!model) byModel.set(modelId, (model = { modelId, ...zeroTotals() }));
    addTotals(model, one);
    if (recent.length < RECENT_LIMIT)
      recent.push({ at, modelId, promptTokens: u.promptTokens, completionTokens: u.completionTokens, usd: u.costUsd, diem: u.costDiem, via: null });
  }
  const models = [...byModel.values()].sort((a, b) => b.usd + b.diem - (a.usd + a.diem) || b.requests - a.requests || a.modelId.localeCompare(b.modelId));
  return { days, ...span, source: 'chats', totals, byDay: [...byDay.values()], byModel: models, recent };
}
