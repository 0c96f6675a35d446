// What the app's model and character lists are read through (local-catalogue.ts, remote-catalogue.ts), and the
// shapes both produce.
import { ApiError } from '../api/errors.ts';
import type { Character } from '../characters/characters.ts';
import type { ModelEntry } from '../models/schema.ts';
import type { AppCharacter, AppModel } from '../wire.ts';

export interface CatalogueSource {
  /** Text models, the default one flagged. */
  models(): Promise<AppModel[]>;
  /** Characters whose name, description or tags contain `q` (all when q is empty). */
  characters(q?: string | null): Promise<AppCharacter[]>;
  /** The text model called `name` (an id, or locally also a trait or alias); 404 MODEL_NOT_FOUND otherwise. */
  model(name: string): Promise<AppModel>;
  /** 404 CHARACTER_NOT_FOUND unless it exists. */
  character(slug: string): Promise<AppCharacter>;
}

export const CHARACTER_QUERY_MAX = 200;

/** A photo URL the browser may load: http(s), or a path on this site; anything else (javascript:, data:, //host) is dropped. */
export function safePhotoUrl(url: string | null | undefined, base?: string): string | null {
  if (!url) return null;
  if (url.startsWith('/') && !url.startsWith('//') && !base) return url;
  try {
    const u = new URL(url, base);
    return u.protocol === 'https:' || u.protocol === 'http:' ? u.href : null;
  } catch {
    return null;
  }
}

/** The project's demo model (random weights): readable but meaningless answers. */
export const isDemoModel = (m: ModelEntry): boolean => !!(m.demo || (m.engine.kind === 'llama' && m.engine.demo));

/**
 * The app's default chat model: the catalogue's (its `default` trait, else the first), except that the demo model
 * gives way to the first real model served, so once the operator adds one a newcomer's first chat gets real answers.
 */
export function appDefaultModel(text: readonly ModelEntry[]): ModelEntry | undefined {
  const marked = text.find((m) => m.traits.includes('default')) ?? text[0];
  return marked && isDemoModel(marked) ? (text.find((m) => !isDemoModel(m)) ?? marked) : marked;
}

export function modelToApp(m: ModelEntry, isDefault: boolean, webSearchAvailable: boolean, unavailable?: string): AppModel {
  const c = m.capabilities;
  const out: AppModel = {
    id: m.id,
    name: m.name,
    pricing: { inputUsd: m.pricing.input_usd, outputUsd: m.pricing.output_usd },
    contextLength: m.context_length,
    capabilities: {
      vision: c.vision,
      reasoning: c.reasoning,
      webSearch: c.web_search && webSearchAvailable,
      functionCalling: c.function_calling,
      e2ee: c.e2ee,
    },
    traits: [...m.traits],
    isDefault,
  };
  if (m.description) out.description = m.description;
  // The demo model's answers are meaningless: the app says so where it is picked and in an empty chat.
  if (isDemoModel(m)) out.demo = true;
  if (unavailable) out.unavailable = unavailable;
  return out;
}

export const characterToApp = (c: Character): AppCharacter => ({
  slug: c.slug,
  name: c.name,
  description: c.description ?? '',
  photoUrl: safePhotoUrl(c.photoUrl),
  tags: [...c.tags],
  modelId: c.modelId,
});

export function checkCharacterQuery(q: string | null | undefined): string {
  const s = (q ?? '').trim();
  if (s.length > CHARACTER_QUERY_MAX) throw new ApiError('INVALID_REQUEST', `q must be at most ${CHARACTER_QUERY_MAX} characters`, { param: 'q' });
  return s;
}
