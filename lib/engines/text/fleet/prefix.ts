// The prefix key of a conversation: what it starts with (its system prompt and first user turn, cut at N characters),
// hashed. Every later turn of the same chat starts with the same messages, so it gets the same key and goes to the
// replica whose KV cache already holds that prefix.
import type { EngineRequest } from '../types.ts';

export const DEFAULT_PREFIX_CHARS = 2048;

/** The text of a message's content: a string, or the text parts of a parts array (an image by the start of its URL). */
function contentText(content: unknown, room: number): string {
  if (typeof content === 'string') return content.slice(0, room);
  if (!Array.isArray(content)) return '';
  let out = '';
  for (const p of content as Record<string, any>[]) {
    if (out.length >= room) break;
    if (typeof p?.text === 'string') out += p.text;
    else if (typeof p?.image_url?.url === 'string') out += p.image_url.url.slice(0, 128);
  }
  return out.slice(0, room);
}

/** 32-bit FNV-1a with a final avalanche (murmur3's fmix32), so near-identical prefixes still scatter. */
export function hash32(s: string): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/**
 * The affinity key of a request: the caller's prompt_cache_key when it gives one, else a hash of the messages up to
 * and including the first user message, cut at `chars` characters. Undefined when there is nothing to key on.
 */
export function prefixKey(req: Pick<EngineRequest, 'messages' | 'cacheKey'>, chars = DEFAULT_PREFIX_CHARS): string | undefined {
  if (req.cacheKey) return `k:${req.cacheKey}`;
  if (chars <= 0) return undefined;
  let text = '';
  for (const m of req.messages as Record<string, any>[]) {
    if (text.length >= chars) break;
    text += `${m?.role}\u0000${contentText(m?.content, chars - text.length)}\u0001`;
    if (m?.role === 'user') break;
  }
  return text ? `p:${hash32(text.slice(0, chars)).toString(36)}:${text.length}` : undefined;
}
