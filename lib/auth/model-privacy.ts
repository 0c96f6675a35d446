// A key's `modelPrivacy` (the public key object's field): which models it may run. `ALL` runs any; `PRIVATE_TEXT`
// needs text and embedding models to be private (the prompt is the sensitive part there) and leaves media models
// free; `PRIVATE_ONLY` needs every model private. Private is the catalogue's `privacy: 'private'` alone: a model that
// merely supports E2EE still sees plain text when a request does not use it, so it does not count.
import { ApiError } from '../api/errors.ts';
import type { ModelPrivacy, Principal } from './keys.ts';
import type { ModelEntry } from '../models/schema.ts';

const PROMPT_TYPES: ReadonlySet<string> = new Set(['text', 'embedding']);

/** Whether the key's own model list (null: any) lets it run the model. */
export const listAllows = (allowed: readonly string[] | null | undefined, model: Pick<ModelEntry, 'id'>): boolean => !allowed || allowed.includes(model.id);

/** Whether a key with this setting may run the model. */
export function privacyAllows(setting: ModelPrivacy, model: Pick<ModelEntry, 'type' | 'privacy'>): boolean {
  if (setting === 'ALL' || model.privacy === 'private') return true;
  return setting === 'PRIVATE_TEXT' && !PROMPT_TYPES.has(model.type);
}

/**
 * 403 MODEL_PRIVACY_FORBIDDEN when the caller's key may not run the model, naming the setting and the model's privacy.
 * Called at admission (lib/billing/metered.ts), before anything is held, so a refusal charges nothing.
 */
export function refuseByModelPrivacy(principal: Pick<Principal, 'key'>, model: Pick<ModelEntry, 'id' | 'type' | 'privacy'>): void {
  // A key's own model list (Lagoon's field) is checked first: it names the models outright.
  const allowed = principal.key.allowedModels;
  if (allowed && !allowed.includes(model.id)) {
    throw new ApiError('MODEL_NOT_ALLOWED_FOR_KEY', `This API key may run only ${allowed.join(', ')}, not ${model.id}`, { models: allowed, modelId: model.id });
  }
  const setting = principal.key.modelPrivacy ?? 'ALL';
  if (privacyAllows(setting, model)) return;
  throw new ApiError(
    'MODEL_PRIVACY_FORBIDDEN',
    `This API key's modelPrivacy is ${setting}, which does not allow ${model.id}: it is a ${model.type} model whose privacy is ${model.privacy}`,
    { modelPrivacy: setting, modelId: model.id, privacy: model.privacy },
  );
}
