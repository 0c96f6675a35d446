// SearXNG (https://docs.searxng.org/dev/search_api.html): GET {baseUrl}/search?q=…&format=json. The instance must have
// the json format enabled (search.formats in settings.yml), or it answers 403.

import type { SearchProvider, SearchResult } from '../types.ts';
import { checkCount, cleanText, normaliseDate, tidyResults } from './clean.ts';
import { getJson } from './http.ts';

export interface SearxngOptions {
  baseUrl: string;
  /** Per search, body included (default 5000). */
  timeoutMs?: number;
  /** Most results a search returns whatever count is asked for (default 20: SearXNG answers one page of about that). */
  fetchCount?: number;
  /** SearXNG's `language` parameter (e.g. `en`, `de-CH`); the instance default when unset. */
  language?: string;
}

export function createSearxng(opts: SearxngOptions): SearchProvider {
  const base = opts.baseUrl.replace(/\/+$/, '');
  const timeoutMs = opts.timeoutMs ?? 5000;
  const fetchCount = opts.fetchCount ?? 20;
  return {
    name: 'searxng',
    async search(query, { count, signal }) {
      const wanted = Math.min(checkCount(count), fetchCount);
      if (wanted === 0) return [];
      const params = new URLSearchParams({ q: query, format: 'json' });
      if (opts.language) params.set('language', opts.language);
      const body = await getJson(`${base}/search?${params}`, { provider: 'searxng', timeoutMs, signal });
      const raw = (body as { results?: unknown } | null)?.results;
      if (!Array.isArray(raw)) throw new Error('searxng: response has no results list');
      const results = raw.map((r: Record<string, unknown> | null): SearchResult => {
        const date = normaliseDate(r?.publishedDate);
        return {
          title: cleanText(r?.title),
          url: typeof r?.url === 'string' ? r.url.trim() : '',
          content: cleanText(r?.content),
          ...(date ? { date } : {}),
        };
      });
      return tidyResults(results, wanted);
    },
  };
}
