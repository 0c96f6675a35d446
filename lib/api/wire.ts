// Wire names that carry the service's own name. One setting (LAGOON_WIRE_NAME) switches them all, so an operator can
// serve the exact names of the public API the spec mirrors (`venice`) for drop-in client compatibility.

export interface WireNames {
  word: string;
  /** `service_parameters` */
  params: string;
  /** `include_service_system_prompt` */
  includeSystemPrompt: string;
  /** `x-service-` header prefix */
  headerPrefix: string;
}

export function wireNames(word: string): WireNames {
  if (!/^[a-z][a-z0-9]{0,31}$/.test(word)) throw new Error(`LAGOON_WIRE_NAME must be a lowercase word, got "${word}"`);
  return {
    word,
    params: `${word}_parameters`,
    includeSystemPrompt: `include_${word}_system_prompt`,
    headerPrefix: `x-${word}-`,
  };
}

/** The search-documents tool call keeps the name the spec gives it, whatever the wire word. */
export const SEARCH_DOCUMENTS_TOOL = 'venice_web_search_documents';

/**
 * Whether bodies take the public API's exact shapes (`venice`): no envelope or field its schemas lack. Otherwise the
 * spec's own shapes are served, and the public forms are accepted as well.
 */
export const publicShapes = (wire: WireNames): boolean => wire.word === 'venice';
