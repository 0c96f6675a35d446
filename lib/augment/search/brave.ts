// Brave Search API (https://api-dashboard.search.brave.com/app/documentation/web-search): GET
// {baseUrl}/res/v1/web/search?q=…&count=n with the subscription token in X-Subscription-Token.

import type { SearchProvider, SearchResult } from '../types.ts';
import { checkCount, cleanText, normaliseDate, tidyResults } from './clean.ts';
import { getJson } from './http.ts';

export interface BraveOptions {
  apiKey: string;
  baseUrl?: string;
  /** Per search, body included (default 5000). */
  timeoutMs?: number;
}

/** Brave's largest page. */
const BRAVE_MAX_COUNT = 20;

export function createBrave(opts: BraveOptions): SearchProvider {
  const base = (opts.baseUrl ?? 'https://api.search.brave.com').replace(/\/+$/, '');
  const timeoutMs = opts.timeoutMs ?? 5000;
  return {
    name: 'brave',
    async search(query, { count, signal }) {
      const wanted = Math.min(checkCount(count), BRAVE_MAX_COUNT);
      if (wanted === 0) return [];
      const params = new URLSearchParams({ q: query, count: String(wanted) });
      const body = await getJson(`${base}/res/v1/web/search?${params}`, {
        provider: 'brave',
        timeoutMs,
        signal,
        headers: { 'X-Subscription-Token': opts.apiKey },
      });
      const web = (body as { web?: { results?: unknown } } | null)?.web;
      // A query with no web hits has no `web` section at all.
      if (web === undefined) return [];
      if (!Array.isArray(web?.results)) throw new Error('brave: response has no web results list');
      const results = web.results.map((r: Record<string, unknown> | null): SearchResult => {
        // page_age is an ISO timestamp; age is for display ("2 days ago", "May 1, 2024").
        const date = normaliseDate(r?.page_age) ?? normaliseDate(r?.age);
        return {
          title: cleanText(r?.title),
          url: typeof r?.url === 'string' ? r.url.trim() : '',
          content: cleanText(r?.description),
          ...(date ? { date } : {}),
        };
      });
      return tidyResults(results, wanted);
    },
  };
}
