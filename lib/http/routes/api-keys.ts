// API key management (ADMIN keys): list, create, update, delete, get one.
import { z } from 'zod';
import { ApiError } from '../../api/errors.ts';
import { parseOrThrow } from '../../api/validation.ts';
import { type ApiKey, accountKeys, type KeySpending } from '../../auth/keys.ts';
import { microsToString, toMicros } from '../../billing/money.ts';
import { jsonBody, principalOf, type RequestCtx } from '../context.ts';
import { ok } from '../send.ts';

const MAX_ACTIVE_KEYS = 500;
const LIMIT_MAX = 9_999_999_999;

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
const usd = (micros: number | null) => (micros === null ? null : micros / 1e6);
const fourPlaces = (micros: number) => (micros / 1e6).toFixed(4);

/** The key object of the reference (list / get / patch). */
export function keyRecord(k: ApiKey, spending: KeySpending | undefined) {
  const hasLimits = k.limitUsd !== null || k.limitDiem !== null;
  const week = spending?.week ?? { usd: 0, diem: 0 };
  const period = spending?.period ?? { usd: 0, diem: 0 };
  return {
    id: k.id,
    apiKeyType: k.type,
    description: k.description,
    createdAt: iso(k.createdAt),
    expiresAt: iso(k.expiresAt),
    lastUsedAt: iso(k.lastUsedAt),
    last6Chars: k.last6,
    consumptionLimits: { usd: usd(k.limitUsd), diem: usd(k.limitDiem) },
    limitPeriod: k.limitPeriod,
    usage: { trailingSevenDays: { usd: fourPlaces(week.usd), diem: fourPlaces(week.diem) } },
    ...(hasLimits ? { currentPeriodUsage: { usd: microsToString(period.usd), diem: microsToString(period.diem) } } : {}),
  };
}

// `""` or null clears an expiry; a date or datetime sets it (a bare date means its start, UTC).
const expiresAt = z.union([z.literal(''), z.null(), z.iso.datetime({ offset: true }), z.iso.date()]).transform((v, ctx) => {
  if (!v) return null;
  const ms = Date.parse(v);
  if (ms <= Date.now()) {
    ctx.addIssue({ code: 'custom', message: 'expiresAt must be in the future' });
    return z.NEVER;
  }
  return ms;
});
const cap = z.number().min(0).max(LIMIT_MAX).nullable().optional();
const consumptionLimit = z.strictObject({ usd: cap, diem: cap, vcu: cap }).optional();
const limitPeriod = z.enum(['EPOCH', 'MONTH', 'LIFETIME']);

const createBody = z.strictObject({
  apiKeyType: z.enum(['INFERENCE', 'ADMIN']),
  description: z.string().max(64),
  expiresAt: expiresAt.optional(),
  consumptionLimit,
  limitPeriod: limitPeriod.optional(),
});

const patchBody = z.strictObject({
  id: z.string().min(1),
  apiKeyType: z.never({ error: 'The key type cannot change; create a new key instead' }).optional(),
  description: z.string().max(64).optional(),
  expiresAt: expiresAt.optional(),
  consumptionLimit: consumptionLimit.nullable(),
  limitPeriod: limitPeriod.optional(),
});

const limitMicros = (v: number | null | undefined) => (v === undefined ? undefined : v === null ? null : toMicros(v));

export async function listKeys(ctx: RequestCtx): Promise<void> {
  const p = principalOf(ctx);
  const keys = accountKeys(ctx.svc.store, p.accountId);
  const [list, spending] = await Promise.all([keys.listActive(), keys.spending()]);
  ok(ctx, { object: 'list', data: list.map((k) => keyRecord(k, spending.get(k.id))) });
}

export async function getKey(ctx: RequestCtx): Promise<void> {
  const p = principalOf(ctx);
  const keys = accountKeys(ctx.svc.store, p.accountId);
  const key = await keys.get(ctx.params.id);
  if (!key || key.revokedAt !== null) throw new ApiError('NOT_FOUND', `API key ${ctx.params.id} not found`);
  ok(ctx, { data: keyRecord(key, (await keys.spending()).get(key.id)) });
}

export async function createKey(ctx: RequestCtx): Promise<void> {
  const p = principalOf(ctx);
  const body = parseOrThrow(createBody, await jsonBody(ctx), ctx.svc.config.wire);
  const keys = accountKeys(ctx.svc.store, p.accountId);
  if ((await keys.countActive()) >= MAX_ACTIVE_KEYS) throw new ApiError('INVALID_REQUEST', `An account may have at most ${MAX_ACTIVE_KEYS} active API keys`);
  const { key, secret } = await keys.create({
    type: body.apiKeyType,
    description: body.description,
    expiresAt: body.expiresAt ?? null,
    limitUsd: limitMicros(body.consumptionLimit?.usd) ?? null,
    limitDiem: limitMicros(body.consumptionLimit?.diem ?? body.consumptionLimit?.vcu) ?? null,
    limitPeriod: body.limitPeriod,
  });
  ok(ctx, {
    success: true,
    data: {
      id: key.id,
      apiKey: secret,
      apiKeyType: key.type,
      description: key.description,
      expiresAt: iso(key.expiresAt),
      consumptionLimit: { usd: usd(key.limitUsd), diem: usd(key.limitDiem) },
      limitPeriod: key.limitPeriod,
    },
  });
}

export async function updateKey(ctx: RequestCtx): Promise<void> {
  const p = principalOf(ctx);
  const body = parseOrThrow(patchBody, await jsonBody(ctx), ctx.svc.config.wire);
  const keys = accountKeys(ctx.svc.store, p.accountId);
  const limits = body.consumptionLimit;
  const updated = await keys.update(body.id, {
    description: body.description,
    expiresAt: body.expiresAt,
    // consumptionLimit: null removes both caps; inside it, null removes one cap and an absent field keeps it.
    limitUsd: limits === null ? null : limitMicros(limits?.usd),
    limitDiem: limits === null ? null : limitMicros(limits?.diem ?? limits?.vcu),
    limitPeriod: body.limitPeriod,
  });
  if (!updated) throw new ApiError('INVALID_REQUEST', 'API key not found or expired');
  ok(ctx, { success: true, data: keyRecord(updated, (await keys.spending()).get(updated.id)) });
}

export async function deleteKey(ctx: RequestCtx): Promise<void> {
  const p = principalOf(ctx);
  let id = ctx.url.searchParams.get('id');
  if (!id && ctx.req.headers['content-length'] && ctx.req.headers['content-length'] !== '0') {
    const body = parseOrThrow(z.strictObject({ id: z.string().min(1) }), await jsonBody(ctx), ctx.svc.config.wire);
    id = body.id;
  }
  if (!id) throw new ApiError('INVALID_REQUEST', 'Give the key to delete as ?id=<key id>', { param: 'id' });
  if (!(await accountKeys(ctx.svc.store, p.accountId).revoke(id))) throw new ApiError('INVALID_REQUEST', 'API key not found or already deleted');
  ok(ctx, { success: true });
}
