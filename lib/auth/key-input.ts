// What a caller may ask of the account's keys, validated once for both doors: the API's /api_keys (ADMIN keys) and
// the browser app's key pages (the account's owner). The bodies are the API's own wire shapes, so the rules
// (description length, a future expiry, caps from 0 to LIMIT_MAX, at most MAX_ACTIVE_KEYS live keys) are one code.
import { z } from 'zod';
import { ApiError } from '../api/errors.ts';
import { toMicros } from '../billing/money.ts';
import type { Store } from '../db/store.ts';
import { type ApiKey, accountKeys, type KeyPatch, type KeyType, MODEL_PRIVACY } from './keys.ts';

export const MAX_ACTIVE_KEYS = 500;
export const LIMIT_MAX = 9_999_999_999;
export const DESCRIPTION_MAX = 64;

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
const limitPeriod = z.enum(['EPOCH', 'WEEK', 'MONTH', 'LIFETIME']);
/** The only models the key may run; null or absent: any. Lagoon's own field (refused with the public API's names). */
const models = z.array(z.string().min(1).max(200)).min(1).max(100).nullable().optional();
const modelPrivacy = z.enum(MODEL_PRIVACY);

export const createKeyBody = z.strictObject({
  apiKeyType: z.enum(['INFERENCE', 'ADMIN']),
  description: z.string().max(DESCRIPTION_MAX),
  expiresAt: expiresAt.optional(),
  consumptionLimit,
  limitPeriod: limitPeriod.optional(),
  modelPrivacy: modelPrivacy.optional(),
  models,
});

export const patchKeyBody = z.strictObject({
  id: z.string().min(1),
  apiKeyType: z.never({ error: 'The key type cannot change; create a new key instead' }).optional(),
  description: z.string().max(DESCRIPTION_MAX).optional(),
  expiresAt: expiresAt.optional(),
  consumptionLimit: consumptionLimit.nullable(),
  limitPeriod: limitPeriod.optional(),
  modelPrivacy: modelPrivacy.optional(),
  models,
});

export type CreateKeyBody = z.infer<typeof createKeyBody>;
export type PatchKeyBody = z.infer<typeof patchKeyBody>;

const limitMicros = (v: number | null | undefined) => (v === undefined ? undefined : v === null ? null : toMicros(v));

/** Creates the key (400 once the account has MAX_ACTIVE_KEYS live keys); the secret is returned this once. */
/** `memberId`: in a team, the member the key is made by (its usage is theirs; it works while they are a member). */
export async function createKeyFrom(
  store: Store,
  accountId: string,
  body: CreateKeyBody,
  memberId: string | null = null,
): Promise<{ key: ApiKey; secret: string }> {
  const keys = accountKeys(store, accountId);
  if ((await keys.countActive()) >= MAX_ACTIVE_KEYS) throw new ApiError('INVALID_REQUEST', `An account may have at most ${MAX_ACTIVE_KEYS} active API keys`);
  return keys.create({
    type: body.apiKeyType as KeyType,
    description: body.description,
    expiresAt: body.expiresAt ?? null,
    limitUsd: limitMicros(body.consumptionLimit?.usd) ?? null,
    limitDiem: limitMicros(body.consumptionLimit?.diem ?? body.consumptionLimit?.vcu) ?? null,
    limitPeriod: body.limitPeriod,
    modelPrivacy: body.modelPrivacy,
    allowedModels: body.models ? [...new Set(body.models)] : null,
    memberId,
  });
}

/** The change a patch body asks for: consumptionLimit null removes both caps; inside it, null removes one and an absent field keeps it. */
export function keyPatchFrom(body: PatchKeyBody): KeyPatch {
  const limits = body.consumptionLimit;
  return {
    description: body.description,
    expiresAt: body.expiresAt,
    limitUsd: limits === null ? null : limitMicros(limits?.usd),
    limitDiem: limits === null ? null : limitMicros(limits?.diem ?? limits?.vcu),
    limitPeriod: body.limitPeriod,
    modelPrivacy: body.modelPrivacy,
    allowedModels: body.models === undefined ? undefined : body.models && [...new Set(body.models)],
  };
}
