// Model fallbacks (`fallbacks: [{model}]`): the models a chat request tries in order when the one before is
// unavailable (at capacity, its engine down or failing to start) or fails before its first byte. Each attempt is a
// whole metered call on its own model (admission, hold, engine), released when it fails, so only the model that
// answers is billed and named in the model headers.
import { ApiError } from '../api/errors.ts';
import type { ChatRequest } from './schema.ts';
import { type Catalogue, resolveModel } from '../models/catalogue.ts';
import { splitModelSuffix } from './suffix.ts';

/** The failures a fallback answers: the model could not serve, through no fault of the request. */
const FALLS_BACK = new Set(['MODEL_AT_CAPACITY', 'ENGINE_UNAVAILABLE', 'ENGINE_DOWN', 'INFERENCE_FAILED', 'REQUEST_TIMEOUT']);

export const fallsBack = (e: unknown): boolean => e instanceof ApiError && FALLS_BACK.has(e.code);

/**
 * The request's model then its fallbacks (duplicates dropped). Every fallback must name a text model of the catalogue
 * (a suffix is allowed, as in `model`): a typo is a 404 now, not a surprise when the first model fails.
 */
export function modelCandidates(req: ChatRequest, catalogue: Catalogue, includeSystemPromptKey: string): string[] {
  const out = [req.model];
  for (const [i, f] of (req.fallbacks ?? []).entries()) {
    const { base } = splitModelSuffix(f.model, includeSystemPromptKey);
    let model;
    try {
      model = resolveModel(catalogue, base);
    } catch (e) {
      if (e instanceof ApiError) throw new ApiError(e.code, `fallbacks.${i}.model: ${e.message}`, { param: `fallbacks.${i}.model` });
      throw e;
    }
    if (model.type !== 'text') throw new ApiError('INVALID_MODEL', `fallbacks.${i}.model: ${model.id} is a ${model.type} model, not a text model`);
    if (!out.includes(f.model)) out.push(f.model);
  }
  return out;
}
