// Normalising what search providers return: snippets carry HTML (Brave marks matches with <strong>), entities,
// and ragged whitespace; dates come in several shapes; some results lack a usable URL.

import type { SearchResult } from '../types.ts';

const NAMED_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', hellip: '…', mdash: '—', ndash: '–' };

/** Text without HTML tags, with entities decoded and whitespace collapsed. */
export function cleanText(value: unknown): string {
  if (typeof value !== 'string') return '';
  return (
    value
      // Inline tags vanish ("<strong>Rome</strong>." stays "Rome."); any other tag separates words.
      .replace(/<\/?(?:strong|b|em|i|u|mark|span|a|code|small|abbr)\b[^>]*>/gi, '')
      .replace(/<[^>]*>/g, ' ')
      .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
        if (name[0] !== '#') return Object.hasOwn(NAMED_ENTITIES, name.toLowerCase()) ? NAMED_ENTITIES[name.toLowerCase()] : whole;
        const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
        return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
      })
      .replace(/\s+/g, ' ')
      .trim()
  );
}

/**
 * A provider's date as ISO 8601 where it can be read: timestamps become UTC instants (a timestamp without a zone is
 * taken as UTC), a plain date stays a date; text no parser understands ("3 days ago") is kept as given.
 */
export function normaliseDate(value: unknown): string | undefined {
  if (typeof value !== 'string' || !value.trim()) return undefined;
  const text = value.trim();
  if (/^\d{4}-\d{2}-\d{2}$/.test(text)) return text;
  if (/^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}/.test(text)) {
    const zoned = /(?:Z|[+-]\d{2}:?\d{2})$/i.test(text) ? text : `${text}Z`;
    const t = Date.parse(zoned.replace(' ', 'T'));
    return Number.isNaN(t) ? text : new Date(t).toISOString();
  }
  // Other shapes ("May 1, 2024") parse in local time; only the calendar date is kept, which does not depend on it.
  const local = new Date(text);
  if (Number.isNaN(local.getTime()) || !/\d{4}/.test(text)) return text;
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${local.getFullYear()}-${pad(local.getMonth() + 1)}-${pad(local.getDate())}`;
}

/** Results with a title and an http(s) URL, first of each URL kept (fragments ignored), at most `count`. */
export function tidyResults(results: SearchResult[], count: number): SearchResult[] {
  const seen = new Set<string>();
  const kept: SearchResult[] = [];
  for (const r of results) {
    if (kept.length >= count) break;
    if (!r.title || !r.url) continue;
    let key: string;
    try {
      const url = new URL(r.url);
      if (url.protocol !== 'http:' && url.protocol !== 'https:') continue;
      url.hash = '';
      key = url.href;
    } catch {
      continue;
    }
    if (seen.has(key)) continue;
    seen.add(key);
    kept.push(r);
  }
  return kept;
}

/** A non-negative whole count; anything else is a programming error in the caller. */
export function checkCount(count: number): number {
  if (!Number.isInteger(count) || count < 0) throw new Error(`search count must be a non-negative integer, got ${count}`);
  return count;
}
