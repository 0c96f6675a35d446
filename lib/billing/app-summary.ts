// The billing page's figures for the session user's account: balances (what is held by requests in flight too), spend
// today / 7 / 30 days, when the USD credit runs out at the last week's rate, and the chart series (spend per day by
// model, tokens and requests per day, requests per hour over the last 24 h). One round of parallel reads.
import { accountKeys } from '../auth/keys.ts';
import { fromMicros, nextEpochStart } from './money.ts';
import { usageByDayAndModel, usageByHour } from './usage-series.ts';
import type { User } from '../users/users.ts';
import type { AppDeps } from '../http/app-deps.ts';
import type { BillingChartDay, BillingSummary, SpendWindow } from '../wire.ts';
import { daysOf } from './usage-span.ts';

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
/** Models named in the stacked chart; the rest are summed as "other" so the colours stay few and distinct. */
const CHART_MODELS = 5;
export const OTHER = 'other';

const micro = (v: number) => Math.round(v * 1e6) / 1e6;

export async function billingSummary(deps: AppDeps, user: User, now = Date.now()): Promise<BillingSummary> {
  const { svc } = deps;
  const accountId = user.accountId;
  const today = Math.floor(now / DAY_MS) * DAY_MS;
  const span = { from: today - 29 * DAY_MS, to: now + 1 };
  const hours = { from: Math.floor(now / HOUR_MS) * HOUR_MS - 23 * HOUR_MS, to: now + 1 };
  const [b, dayModel, perHour, keys] = await Promise.all([
    svc.ledger.balances(accountId, now),
    usageByDayAndModel(svc.store, accountId, span),
    usageByHour(svc.store, accountId, hours),
    accountKeys(svc.store, accountId).list(200),
  ]);

  // The chart's models: the 30 days' biggest spenders (USD and DIEM alike: only the order), then the busiest; the
  // rest as "other".
  const perModel = new Map<string, { spend: number; requests: number }>();
  for (const r of dayModel) {
    const m = perModel.get(r.modelId) ?? { spend: 0, requests: 0 };
    m.spend += r.usd + r.diem;
    m.requests += r.requests;
    perModel.set(r.modelId, m);
  }
  const ranked = [...perModel].sort((a, b) => b[1].spend - a[1].spend || b[1].requests - a[1].requests || (a[0] < b[0] ? -1 : 1)).map(([id]) => id);
  const named = ranked.slice(0, CHART_MODELS);
  const hasOther = ranked.length > CHART_MODELS;

  const days = new Map<string, BillingChartDay>(
    daysOf(span).map((date) => [
      date,
      {
        date,
        spend: Object.fromEntries([...named, ...(hasOther ? [OTHER] : [])].map((m) => [m, 0])),
        total: 0,
        spendDiem: Object.fromEntries([...named, ...(hasOther ? [OTHER] : [])].map((m) => [m, 0])),
        totalDiem: 0,
        tokens: 0,
        requests: 0,
      },
    ]),
  );
  const windows = { today: zero(), last7Days: zero(), last30Days: zero() };
  const weekStart = today - 6 * DAY_MS;
  for (const r of dayModel) {
    const d = days.get(r.date);
    if (!d) continue;
    const slot = named.includes(r.modelId) ? r.modelId : OTHER;
    d.spend[slot] = micro(d.spend[slot] + fromMicros(r.usd));
    d.total = micro(d.total + fromMicros(r.usd));
    d.spendDiem[slot] = micro(d.spendDiem[slot] + fromMicros(r.diem));
    d.totalDiem = micro(d.totalDiem + fromMicros(r.diem));
    d.tokens += r.tokens;
    d.requests += r.requests;
    const at = Date.parse(`${r.date}T00:00:00Z`);
    add(windows.last30Days, r);
    if (at >= weekStart) add(windows.last7Days, r);
    if (at >= today) add(windows.today, r);
  }

  const usd = Math.max(0, b.usd - b.usdHeld);
  const usdPerDay = micro(windows.last7Days.usd / 7);
  return {
    now,
    balances: {
      usd: fromMicros(usd),
      diem: fromMicros(Math.max(0, b.diem - b.diemHeld)),
      usdHeld: fromMicros(b.usdHeld),
      diemHeld: fromMicros(b.diemHeld),
      diemDailyAllowance: fromMicros(b.diemDaily),
      diemResetsAt: nextEpochStart(now),
    },
    spend: windows,
    projection: { usdPerDay, runsOutAt: usdPerDay > 0 ? Math.round(now + (fromMicros(usd) / usdPerDay) * DAY_MS) : null },
    chart: {
      models: [...named, ...(hasOther ? [OTHER] : [])],
      days: [...days.values()],
      hours: perHour.map((h) => ({ hour: h.hour, requests: h.requests })),
    },
    // The models of the last 30 days, as suggestions: the statement's model filter takes any id.
    filters: { keys: keys.map((k) => ({ id: k.id, description: k.description, revoked: k.revokedAt !== null })), models: ranked },
    // A wallet tops up itself only where this server takes USDC on its chain; elsewhere the operator grants credit.
    topUp: user.wallet && svc.wallet.settings.rails[user.wallet.namespace === 'eip155' ? 'evm' : 'solana'] ? 'wallet' : 'operator',
    isOperator: user.isAdmin && !user.wallet,
  };
}

const zero = (): SpendWindow => ({ usd: 0, diem: 0, requests: 0 });

function add(w: SpendWindow, r: { usd: number; diem: number; requests: number }) {
  w.usd = micro(w.usd + fromMicros(r.usd));
  w.diem = micro(w.diem + fromMicros(r.diem));
  w.requests += r.requests;
}
