// The service parameters in effect for one request: body values, overridden by model suffixes, with defaults.
import type { ServiceParamsInput } from './schema.ts';

export interface EffectiveParams {
  enable_e2ee: boolean;
  enable_web_search: 'auto' | 'on' | 'off';
  enable_web_citations: boolean;
  enable_web_scraping: boolean;
  include_service_system_prompt: boolean;
  include_search_results_in_stream: boolean;
  return_search_results_as_documents: boolean;
  strip_thinking_response: boolean;
  disable_thinking: boolean;
  enable_x_search: boolean;
  character_slug?: string;
}

export function effectiveParams(body: ServiceParamsInput | undefined, suffix: ServiceParamsInput): EffectiveParams {
  const p = { ...body, ...suffix };
  return {
    enable_e2ee: p.enable_e2ee ?? false,
    enable_web_search: p.enable_web_search ?? 'off',
    enable_web_citations: p.enable_web_citations ?? false,
    enable_web_scraping: p.enable_web_scraping ?? false,
    include_service_system_prompt: p.include_service_system_prompt ?? true,
    include_search_results_in_stream: p.include_search_results_in_stream ?? false,
    return_search_results_as_documents: p.return_search_results_as_documents ?? false,
    strip_thinking_response: p.strip_thinking_response ?? false,
    disable_thinking: p.disable_thinking ?? false,
    enable_x_search: p.enable_x_search ?? false,
    ...(p.character_slug ? { character_slug: p.character_slug } : {}),
  };
}

/** The response echo (internal names; the HTTP layer renames for the wire word). */
export function paramsEcho(p: EffectiveParams, citations: unknown[] = []) {
  const { enable_x_search: _x, ...echo } = p;
  return { ...echo, web_search_citations: citations };
}
