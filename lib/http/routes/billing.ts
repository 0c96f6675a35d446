// GET /billing/balance, /billing/usage-history and /billing/usage-analytics: ADMIN keys only, scoped to the key's
// account. The API is beta: every body says `"beta": true` and every response (errors included) carries
// x-<word>-beta: true, so clients can tell it may still change.
import { z } from 'zod';
import { ApiError } from '../../api/errors.ts';
import { baseHeaders } from '../../api/headers.ts';
import { parseOrThrow } from '../../api/validation.ts';
import { fromMicros, nextEpochStart } from '../../billing/money.ts';
// Aliased: the handlers carry the route names, which are the same words.
import { usageAnalytics as queryAnalytics, usageHistory as queryHistory } from '../../billing/usage-query.ts';
import { usageCsv } from '../../billing/usage-csv.ts';
import { principalOf, type RequestCtx } from '../context.ts';
import { queryObject } from '../../api/query.ts';
import { ok } from '../send.ts';

const DAY_MS = 86_400_000;
const ANALYTICS_DEFAULT_DAYS = 7;
const ANALYTICS_MAX_DAYS = 90;

const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

export async function billingBalance(ctx: RequestCtx): Promise<void> {
  const { accountId } = principalOf(ctx);
  parseOrThrow(z.strictObject({}), queryObject(ctx.url), ctx.headerCtx.wire);
  const now = Date.now();
  const b = await ctx.svc.ledger.balances(accountId, now);
  // Spendable: what in-flight requests have not reserved. DIEM is spent before USD, so it is the currency in use.
  const diem = Math.max(0, b.diem - b.diemHeld);
  const usd = Math.max(0, b.usd - b.usdHeld);
  const consumptionCurrency = diem > 0 ? 'DIEM' : usd > 0 ? 'USD' : null;
  ok(ctx, {
    beta: true,
    data: {
      canConsume: consumptionCurrency !== null,
      consumptionCurrency,
      balances: { usd: fromMicros(usd), diem: fromMicros(diem) },
      diemDailyAllowance: fromMicros(b.diemDaily),
      diemResetsAt: new Date(nextEpochStart(now)).toISOString(),
    },
  });
}

// A day (00:00 UTC) or an instant with an explicit zone: a zoneless time would depend on the server's clock zone.
const instant = z
  .union([z.iso.date(), z.iso.datetime({ offset: true })], {
    error: 'must be an ISO 8601 date (YYYY-MM-DD) or date-time with a zone (e.g. 2026-01-31T12:00:00Z)',
  })
  .transform((s) => Date.parse(s.length === 10 ? `${s}T00:00:00Z` : s));

const intParam = (min: number, max: number, fallback: number) =>
  z
    .string()
    .regex(/^\d{1,9}$/, `must be an integer from ${min} to ${max}`)
    .transform(Number)
    .pipe(z.number().min(min, `must be at least ${min}`).max(max, `must be at most ${max}`))
    .default(fallback);

const historyQuery = z
  .strictObject({
    startDate: instant.optional(),
    endDate: instant.optional(),
    apiKeyId: z.string().min(1).max(200).optional(),
    modelId: z.string().min(1).max(200).optional(),
    page: intParam(1, 1_000_000, 1),
    limit: intParam(1, 500, 100),
  })
  .superRefine((q, c) => {
    if (q.startDate !== undefined && q.endDate !== undefined && q.startDate >= q.endDate) {
      c.addIssue({ code: 'custom', path: ['endDate'], message: 'must be after startDate (endDate is exclusive)' });
    }
  });

/** Whether the client asked for CSV: text/csv accepted (q > 0) and preferred at least as much as JSON. */
function wantsCsv(accept: string | undefined): boolean {
  if (!accept) return false;
  const q: Record<string, number> = {};
  for (const range of accept.toLowerCase().split(',')) {
    const [type, ...params] = range.split(';').map((s) => s.trim());
    const qParam = params.find((p) => p.startsWith('q='));
    q[type] = qParam ? Number(qParam.slice(2)) || 0 : 1;
  }
  return (q['text/csv'] ?? 0) > 0 && q['text/csv'] >= (q['application/json'] ?? 0);
}

export async function usageHistory(ctx: RequestCtx): Promise<void> {
  const { accountId } = principalOf(ctx);
  const q = parseOrThrow(historyQuery, queryObject(ctx.url), ctx.headerCtx.wire);
  const { rows, total } = await queryHistory(ctx.svc.store, accountId, {
    from: q.startDate,
    to: q.endDate,
    keyId: q.apiKeyId,
    modelId: q.modelId,
    page: q.page,
    limit: q.limit,
  });
  Object.assign(ctx.extraHeaders, {
    'x-pagination-limit': String(q.limit),
    'x-pagination-page': String(q.page),
    'x-pagination-total': String(total),
    'x-pagination-total-pages': String(Math.ceil(total / q.limit)),
  });
  if (!wantsCsv(ctx.req.headers.accept)) return ok(ctx, { beta: true, data: rows });

  const body = Buffer.from(usageCsv(rows), 'utf8');
  ctx.res.writeHead(200, {
    ...baseHeaders(ctx.headerCtx),
    ...ctx.extraHeaders,
    'content-type': 'text/csv; charset=utf-8',
    'content-disposition': `attachment; filename="usage-history-${utcDay(Date.now())}.csv"`,
    'content-length': String(body.length),
  });
  ctx.res.end(body);
}

const analyticsQuery = z.strictObject({
  startDate: z.iso.date({ error: 'must be a date, YYYY-MM-DD' }).optional(),
  endDate: z.iso.date({ error: 'must be a date, YYYY-MM-DD' }).optional(),
});

const dayStart = (date: string) => Date.parse(`${date}T00:00:00Z`);

export async function usageAnalytics(ctx: RequestCtx): Promise<void> {
  const { accountId } = principalOf(ctx);
  const q = parseOrThrow(analyticsQuery, queryObject(ctx.url), ctx.headerCtx.wire);
  // Whole UTC days, endDate included. Without endDate the range ends today; without startDate it spans 7 days.
  const end = q.endDate ? dayStart(q.endDate) : dayStart(utcDay(Date.now()));
  const start = q.startDate ? dayStart(q.startDate) : end - (ANALYTICS_DEFAULT_DAYS - 1) * DAY_MS;
  if (start > end) throw new ApiError('INVALID_REQUEST', 'startDate must not be after endDate', { param: 'startDate' });
  const days = (end - start) / DAY_MS + 1;
  if (days > ANALYTICS_MAX_DAYS) {
    throw new ApiError('INVALID_REQUEST', `The range spans ${days} days; at most ${ANALYTICS_MAX_DAYS} are allowed`, { param: 'startDate' });
  }
  const totals = await queryAnalytics(ctx.svc.store, accountId, { from: start, to: end + DAY_MS });
  ok(ctx, { beta: true, data: { startDate: utcDay(start), endDate: utcDay(end), ...totals } });
}
