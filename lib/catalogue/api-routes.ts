// Discovery endpoints, readable without a key: models, traits, compatibility mapping, image styles.
import { compatibilityMappingOf, traitsOf } from '../models/catalogue.ts';
import { publicShapes } from '../api/wire.ts';
import { authenticate, bearerToken, type ModelPrivacy } from '../auth/keys.ts';
import { listAllows, privacyAllows } from '../auth/model-privacy.ts';
import { MODEL_TYPES, type ModelEntry, type ModelType } from '../models/schema.ts';
import { modelRecord } from '../models/wire.ts';
import type { RequestCtx } from '../http/context.ts';
import { json, type Reply } from '../http/reply.ts';
import type { ApiInput } from '../http/route.ts';
import { z } from 'zod';

/** `?type=`, one of the model types (and `extra`); other parameters are ignored, as the public API does. */
function typeQuery<T extends string>(fallback: T, extra: readonly string[] = []) {
  const allowed: readonly string[] = [...MODEL_TYPES, ...extra];
  return z.object({
    type: z
      .string()
      .refine((t) => allowed.includes(t), { error: (iss) => `"${String(iss.input)}" is not one of ${allowed.join(', ')}` })
      .default(fallback),
  });
}

// `music` is a public type this server has no models of: an empty list, not a 400.
export const modelsQuery = typeQuery('all', ['all', 'code', 'music']);
export const typeOfModelQuery = typeQuery('text');
type TypeQuery = ApiInput<unknown, { type: string }>;

/**
 * The key's modelPrivacy and model list, when the request sends a valid bearer key: the list is public, but a
 * restricted key sees only the models it may run (as the public API filters it). A missing or invalid key sees
 * everything; it is not refused.
 */
async function keyRules(ctx: RequestCtx): Promise<{ privacy: ModelPrivacy; models: string[] | null }> {
  const secret = bearerToken(ctx.req.headers.authorization);
  if (!secret) return { privacy: 'ALL', models: null };
  return authenticate(ctx.svc.store, secret).then(
    (p) => ({ privacy: p.key.modelPrivacy, models: p.key.allowedModels }),
    () => ({ privacy: 'ALL' as const, models: null }),
  );
}

/**
 * Whether the model is listed for this `type`. The public type enum has no `background-remove`, so in the public
 * shapes such models are listed only when that type is asked for by name: a client validating `type` against the
 * public enum never meets it, and one that knows the type still finds them (the model serves
 * /image/background-remove, not /image/upscale, so listing it as `upscale` would mislead).
 */
function listed(m: ModelEntry, type: string, publicEnum: boolean): boolean {
  if (type === 'code') return m.type === 'text' && m.capabilities.code;
  if (type !== 'all') return m.type === type;
  return !(publicEnum && m.type === 'background-remove');
}

/**
 * The public document lists 401 for these lists: readable without a key, but a key that is sent must be valid (a
 * client with a revoked or mistyped key hears so at once, not on its first paid call).
 */
async function refuseInvalidKey(ctx: RequestCtx): Promise<void> {
  const secret = bearerToken(ctx.req.headers.authorization);
  if (ctx.req.headers.authorization !== undefined) await authenticate(ctx.svc.store, secret);
}

export async function listModels(ctx: RequestCtx, { query: { type } }: TypeQuery): Promise<Reply> {
  const { catalogue, searchAvailable, config } = ctx.svc;
  const publicEnum = publicShapes(ctx.headerCtx.wire);
  const rules = await keyRules(ctx);
  const models = catalogue.models.filter((m) => listed(m, type, publicEnum) && privacyAllows(rules.privacy, m) && listAllows(rules.models, m));
  const health = ctx.svc.engineHealth;
  const rc = {
    created: catalogue.createdAt,
    ownedBy: config.modelsOwnedBy,
    webSearchAvailable: searchAvailable,
    offlineReason: (id: string) => health.status(id)?.reason,
    publicShapes: publicShapes(config.wire),
  };
  return json({ object: 'list', type, data: models.map((m) => modelRecord(m, rc)) });
}

export async function modelTraits(ctx: RequestCtx, { query }: TypeQuery): Promise<Reply> {
  await refuseInvalidKey(ctx);
  const type = query.type as ModelType;
  return json({ object: 'list', type, data: traitsOf(ctx.svc.catalogue, type) });
}

export async function compatibilityMapping(ctx: RequestCtx, { query }: TypeQuery): Promise<Reply> {
  await refuseInvalidKey(ctx);
  const type = query.type as ModelType;
  return json({ object: 'list', type, data: compatibilityMappingOf(ctx.svc.catalogue, type) });
}

export async function imageStyles(ctx: RequestCtx): Promise<Reply> {
  await refuseInvalidKey(ctx);
  return json({ object: 'list', data: ctx.svc.catalogue.file.image_styles });
}
