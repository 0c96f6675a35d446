// Model feature suffixes: `<model_id>:<param>=<value>&<param>=<value>`, values URL-decoded. They override the
// body's service parameters; unknown keys are ignored, as the public API does.
import { ApiError } from '../api/errors.ts';
import type { ServiceParamsInput } from './schema.ts';

const BOOLEAN_KEYS = [
  'enable_web_citations',
  'enable_web_scraping',
  'include_search_results_in_stream',
  'return_search_results_as_documents',
  'strip_thinking_response',
  'disable_thinking',
] as const;

export interface SplitModel {
  base: string;
  params: ServiceParamsInput;
}

function bool(key: string, value: string): boolean {
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw new ApiError('INVALID_REQUEST', `Invalid model suffix: ${key} must be true or false, got "${value}"`);
}

export function splitModelSuffix(model: string, includeSystemPromptKey: string): SplitModel {
  const colon = model.indexOf(':');
  if (colon < 0 || !model.slice(colon + 1).includes('=')) return { base: model, params: {} };
  const base = model.slice(0, colon);
  const params: ServiceParamsInput = {};
  for (const pair of model.slice(colon + 1).split('&')) {
    if (!pair) continue;
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new ApiError('INVALID_REQUEST', `Invalid model suffix "${pair}": expected <param>=<value>`);
    let key: string;
    let value: string;
    try {
      key = decodeURIComponent(pair.slice(0, eq));
      value = decodeURIComponent(pair.slice(eq + 1));
    } catch {
      throw new ApiError('INVALID_REQUEST', `Invalid model suffix "${pair}": bad URL encoding`);
    }
    if (key === 'enable_web_search') {
      const v = value === 'true' ? 'on' : value === 'false' ? 'off' : value;
      if (v !== 'on' && v !== 'off' && v !== 'auto')
        throw new ApiError('INVALID_REQUEST', `Invalid model suffix: enable_web_search must be on, off or auto, got "${value}"`);
      params.enable_web_search = v;
    } else if (key === 'character_slug') {
      if (!value) throw new ApiError('INVALID_REQUEST', 'Invalid model suffix: character_slug is empty');
      params.character_slug = value;
    } else if (key === includeSystemPromptKey) {
      params.include_service_system_prompt = bool(key, value);
    } else if ((BOOLEAN_KEYS as readonly string[]).includes(key)) {
      params[key as (typeof BOOLEAN_KEYS)[number]] = bool(key, value);
    }
  }
  return { base, params };
}
