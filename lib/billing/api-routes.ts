// GET /billing/balance, /billing/usage-history and /billing/usage-analytics: ADMIN keys only, scoped to the key's
// account. The API is beta: every response (errors included) carries x-<word>-beta: true, and the spec's bodies say
// `"beta": true`. With the public API's wire names (`venice`) the bodies take its shapes exactly, with no envelope;
// otherwise the spec's shapes are served and the public forms (cursor pages, `lookback`) are accepted too.
// GET /billing/usage is the public API's retired endpoint: 410 pointing at its successor.
import { z } from 'zod';
import { ApiError } from '../api/errors.ts';
import { parseOrThrow } from '../api/validation.ts';
import { publicShapes } from '../api/wire.ts';
import { lookbackDays, type PublicModelType, publicAnalytics } from './analytics-public.ts';
import { fromMicros, nextEpochStart } from './money.ts';
import { decodeCursor, encodeCursor } from './usage-cursor.ts';
import { ENTRY_CURRENCIES, type EntryFilter, usageEntries } from './usage-entries.ts';
import { usageByDayAndKey, usageByDayAndModel } from './usage-series.ts';
import type { ModelType } from '../models/schema.ts';
// Aliased: the handlers carry the route names, which are the same words.
import { usageAnalytics as queryAnalytics, usageHistory as queryHistory } from './usage-query.ts';
import { usageCsv, usageEntriesCsv } from './usage-csv.ts';
import { principalOf, type RequestCtx } from '../http/context.ts';
import { instant, intParam } from '../api/dash-query.ts';
import type { ApiInput } from '../http/route.ts';
import { json, raw, type Reply } from '../http/reply.ts';

const DAY_MS = 86_400_000;
const ANALYTICS_DEFAULT_DAYS = 7;
const ANALYTICS_MAX_DAYS = 90;

const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The balance takes no parameters: an unknown one is refused rather than ignored. */
export const balanceQuery = z.strictObject({});

export async function billingBalance(ctx: RequestCtx): Promise<Reply> {
  const { accountId } = principalOf(ctx);
  const now = Date.now();
  const b = await ctx.svc.ledger.balances(accountId, now);
  // Spendable: what in-flight requests have not reserved. DIEM is spent before USD, so it is the currency in use.
  const diem = Math.max(0, b.diem - b.diemHeld);
  const usd = Math.max(0, b.usd - b.usdHeld);
  const consumptionCurrency = diem > 0 ? 'DIEM' : usd > 0 ? 'USD' : null;
  const balance = {
    canConsume: consumptionCurrency !== null,
    consumptionCurrency,
    balances: { diem: fromMicros(diem), usd: fromMicros(usd) },
    // The public name of the daily DIEM allowance (an epoch is a UTC day).
    diemEpochAllocation: fromMicros(b.diemDaily),
  };
  if (publicShapes(ctx.headerCtx.wire)) return json(balance);
  return json({
    beta: true,
    data: { ...balance, diemDailyAllowance: fromMicros(b.diemDaily), diemResetsAt: new Date(nextEpochStart(now)).toISOString() },
  });
}

// The public API retired GET /billing/usage on this date; clients of it learn where its successor is.
const USAGE_RETIRED = {
  Deprecation: '@1783555200',
  Sunset: 'Wed, 16 Sep 2026 00:00:00 GMT',
  Link: '</api/v1/billing/usage-history>; rel="successor-version"',
};

export async function retiredUsage(): Promise<Reply> {
  throw new ApiError('ENDPOINT_RETIRED', 'GET /billing/usage has been retired; use GET /api/v1/billing/usage-history', undefined, USAGE_RETIRED);
}

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

// The public API's cursor form: its filters, or a cursor alone (which carries them).
const CURSOR_PARAMS = ['pageSize', 'cursor', 'startTimestamp', 'endTimestamp', 'currency'];
const PAGE_PARAMS = ['page', 'limit', 'startDate', 'endDate', 'apiKeyId', 'modelId'];

const cursorQuery = z
  .strictObject({
    startTimestamp: z.iso.datetime({ offset: true, error: 'must be an ISO 8601 date-time with a zone' }).transform(Date.parse).optional(),
    endTimestamp: z.iso.datetime({ offset: true, error: 'must be an ISO 8601 date-time with a zone' }).transform(Date.parse).optional(),
    currency: z.enum(ENTRY_CURRENCIES).optional(),
    pageSize: intParam(10, 1000, 1000),
    cursor: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,512}$/, 'must be the nextCursor of an earlier page')
      .optional(),
  })
  .superRefine((q, c) => {
    if (q.startTimestamp !== undefined && q.endTimestamp !== undefined && q.startTimestamp >= q.endTimestamp) {
      c.addIssue({ code: 'custom', path: ['endTimestamp'], message: 'must be after startTimestamp (endTimestamp is exclusive)' });
    }
  });

/** Which form a request uses: its parameters say; with none, the public one under the public wire names. */
function cursorForm(ctx: RequestCtx, query: Record<string, string>): boolean {
  const names = Object.keys(query);
  const cursor = names.some((n) => CURSOR_PARAMS.includes(n));
  const page = names.some((n) => PAGE_PARAMS.includes(n));
  if (cursor && page) {
    throw new ApiError(
      'INVALID_REQUEST',
      `Use either the cursor parameters (${CURSOR_PARAMS.join(', ')}) or the page parameters (${PAGE_PARAMS.join(', ')}), not both`,
    );
  }
  return cursor || (!page && publicShapes(ctx.headerCtx.wire));
}

const csvStamp = (ms: number) =>
  new Date(ms)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');

const csvReply = (csv: string): Reply =>
  raw(
    {
      'content-type': 'text/csv; charset=utf-8',
      'content-disposition': `attachment; filename="billing-usage-history-${csvStamp(Date.now())}.csv"`,
      'content-length': String(Buffer.byteLength(csv)),
    },
    csv,
  );

async function usageHistoryByCursor(ctx: RequestCtx, accountId: string, query: Record<string, string>): Promise<Reply> {
  const q = parseOrThrow(cursorQuery, query, ctx.headerCtx.wire);
  let filter: EntryFilter & { pageSize: number };
  let after;
  if (q.cursor !== undefined) {
    // The filters live in the cursor: a continuation that names them again could silently change them.
    if (Object.keys(query).length > 1) throw new ApiError('INVALID_REQUEST', 'A continuation request sends only cursor', { param: 'cursor' });
    ({ after, ...filter } = await decodeCursor(ctx.svc.store, accountId, q.cursor));
  } else {
    filter = { from: q.startTimestamp, to: q.endTimestamp, currency: q.currency, pageSize: q.pageSize };
  }
  const page = await usageEntries(ctx.svc.store, accountId, { ...filter, after });
  const nextCursor = page.next ? await encodeCursor(ctx.svc.store, accountId, { ...filter, after: page.next }) : null;
  if (!wantsCsv(ctx.req.headers.accept)) return json({ data: page.data, nextCursor });
  if (nextCursor) ctx.extraHeaders['x-next-cursor'] = nextCursor;
  return csvReply(usageEntriesCsv(page.data));
}

/** Either form's parameters, one value each: the handler tells the page form from the cursor form by their names. */
export const historyParams = z.record(z.string(), z.string());

export async function usageHistory(ctx: RequestCtx, { query }: ApiInput<unknown, Record<string, string>>): Promise<Reply> {
  const { accountId } = principalOf(ctx);
  if (cursorForm(ctx, query)) return usageHistoryByCursor(ctx, accountId, query);
  const q = parseOrThrow(historyQuery, query, ctx.headerCtx.wire);
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
  if (!wantsCsv(ctx.req.headers.accept)) return json({ beta: true, data: rows });
  return csvReply(usageCsv(rows));
}

export const analyticsQuery = z
  .strictObject({
    startDate: z.iso.date({ error: 'must be a date, YYYY-MM-DD' }).optional(),
    endDate: z.iso.date({ error: 'must be a date, YYYY-MM-DD' }).optional(),
    lookback: z
      .string()
      .regex(/^[1-9]\d{0,5}d$/, 'must be a number of days, e.g. 7d')
      .optional(),
  })
  .refine((q) => q.lookback === undefined || (q.startDate === undefined && q.endDate === undefined), {
    path: ['lookback'],
    message: 'give either lookback or startDate and endDate, not both',
  });

const MODEL_TYPE: Partial<Record<ModelType, PublicModelType>> = {
  text: 'LLM',
  image: 'IMAGE',
  upscale: 'IMAGE',
  inpaint: 'IMAGE',
  'background-remove': 'IMAGE',
  tts: 'TTS',
  asr: 'ASR',
  video: 'VIDEO',
};

const dayStart = (date: string) => Date.parse(`${date}T00:00:00Z`);

export async function usageAnalytics(ctx: RequestCtx, { query: q }: ApiInput<unknown, z.output<typeof analyticsQuery>>): Promise<Reply> {
  const { accountId } = principalOf(ctx);
  // Whole UTC days, endDate included. Without endDate the range ends today; without startDate it spans `lookback`
  // days (7 by default; more than 90 is clamped to 90, as the public API does).
  const lookback = q.lookback === undefined ? ANALYTICS_DEFAULT_DAYS : (lookbackDays(q.lookback, ANALYTICS_MAX_DAYS) ?? ANALYTICS_DEFAULT_DAYS);
  const end = q.endDate ? dayStart(q.endDate) : dayStart(utcDay(Date.now()));
  const start = q.startDate ? dayStart(q.startDate) : end - (lookback - 1) * DAY_MS;
  if (start > end) throw new ApiError('INVALID_REQUEST', 'startDate must not be after endDate', { param: 'startDate' });
  const days = (end - start) / DAY_MS + 1;
  if (days > ANALYTICS_MAX_DAYS) {
    throw new ApiError('INVALID_REQUEST', `The range spans ${days} days; at most ${ANALYTICS_MAX_DAYS} are allowed`, { param: 'startDate' });
  }
  const range = { from: start, to: end + DAY_MS };
  const store = ctx.svc.store;
  const [totals, byDayModel, byDayKey] = await Promise.all([
    queryAnalytics(store, accountId, range),
    usageByDayAndModel(store, accountId, range),
    usageByDayAndKey(store, accountId, range),
  ]);
  const catalogue = ctx.svc.catalogue;
  const shaped = publicAnalytics({
    lookback: q.startDate || q.endDate ? `${utcDay(start)}:${utcDay(end)}` : `${lookback}d`,
    totals,
    byDayModel,
    byDayKey,
    modelType: (id) => MODEL_TYPE[catalogue.byId.get(id)?.type as ModelType] ?? null,
  });
  if (publicShapes(ctx.headerCtx.wire)) {
    // Exactly the documented fields: the USD daily series are this server's addition.
    const { byModelDailyUsd: _m, byKeyDailyUsd: _k, ...documented } = shaped;
    return json(documented);
  }
  // The spec's body with the public one merged in: the public series beside the spec's totals, and each model and
  // key row carrying both field sets (one row per model and unit, and per key, in the same order in both).
  return json({
    beta: true,
    data: {
      startDate: utcDay(start),
      endDate: utcDay(end),
      ...totals,
      ...shaped,
      byModel: totals.byModel.map((m, i) => ({ ...m, ...shaped.byModel[i] })),
      byKey: totals.byKey.map((k, i) => ({ ...k, ...shaped.byKey[i] })),
    },
  });
}
