// Discovery endpoints, readable without a key: models, traits, compatibility mapping, image styles.
import { ApiError } from '../../api/errors.ts';
import { compatibilityMappingOf, traitsOf } from '../../models/catalogue.ts';
import { MODEL_TYPES, type ModelType } from '../../models/schema.ts';
import { modelRecord } from '../../models/wire.ts';
import type { RequestCtx } from '../context.ts';
import { ok } from '../send.ts';

function typeParam(ctx: RequestCtx, fallback: string, extra: string[] = []): string {
  const t = ctx.url.searchParams.get('type') ?? fallback;
  const allowed = [...MODEL_TYPES, ...extra];
  if (!allowed.includes(t)) {
    throw new ApiError('INVALID_REQUEST', `Invalid type "${t}": expected one of ${allowed.join(', ')}`, { param: 'type' });
  }
  return t;
}

export async function listModels(ctx: RequestCtx): Promise<void> {
  const type = typeParam(ctx, 'all', ['all', 'code']);
  const { catalogue, searchAvailable } = ctx.svc;
  const models = catalogue.models.filter((m) => type === 'all' || m.type === type || (type === 'code' && m.type === 'text' && m.capabilities.code));
  ok(ctx, { object: 'list', type, data: models.map((m) => modelRecord(m, catalogue.createdAt, searchAvailable)) });
}

export async function modelTraits(ctx: RequestCtx): Promise<void> {
  const type = typeParam(ctx, 'text') as ModelType;
  ok(ctx, { object: 'list', type, data: traitsOf(ctx.svc.catalogue, type) });
}

export async function compatibilityMapping(ctx: RequestCtx): Promise<void> {
  const type = typeParam(ctx, 'text') as ModelType;
  ok(ctx, { object: 'list', type, data: compatibilityMappingOf(ctx.svc.catalogue, type) });
}

export async function imageStyles(ctx: RequestCtx): Promise<void> {
  ok(ctx, { object: 'list', data: ctx.svc.catalogue.file.image_styles });
}
