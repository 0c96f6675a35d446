// The search provider the operator configured, or undefined when search is off. A half-configured provider throws at
// startup rather than failing every search later.
//
//   LAGOON_SEARCH_PROVIDER     searxng | brave (unset: no web search)
//   LAGOON_SEARXNG_URL         base URL of the SearXNG instance (searxng)
//   LAGOON_BRAVE_API_KEY       subscription token (brave)
//   LAGOON_BRAVE_URL           API base URL, default https://api.search.brave.com (brave; tests and proxies)
//   LAGOON_SEARCH_TIMEOUT_MS   per search, default 5000
//   LAGOON_SEARCH_RESULTS      most results a search returns, default 5 (a larger count asked for is cut to it)

import type { SearchProvider } from '../types.ts';
import { createBrave } from './brave.ts';
import { createSearxng } from './searxng.ts';

export function searchProviderFromEnv(env: Record<string, string | undefined>): SearchProvider | undefined {
  const kind = env.LAGOON_SEARCH_PROVIDER?.trim().toLowerCase();
  if (!kind) return undefined;
  const timeoutMs = positiveInt(env, 'LAGOON_SEARCH_TIMEOUT_MS', 5000);
  const maxResults = positiveInt(env, 'LAGOON_SEARCH_RESULTS', 5);
  let provider: SearchProvider;
  if (kind === 'searxng') {
    const baseUrl = httpUrl(env, 'LAGOON_SEARXNG_URL', 'LAGOON_SEARCH_PROVIDER=searxng needs LAGOON_SEARXNG_URL');
    provider = createSearxng({ baseUrl: baseUrl!, timeoutMs });
  } else if (kind === 'brave') {
    const apiKey = env.LAGOON_BRAVE_API_KEY?.trim();
    if (!apiKey) throw new Error('LAGOON_SEARCH_PROVIDER=brave needs LAGOON_BRAVE_API_KEY');
    provider = createBrave({ apiKey, baseUrl: httpUrl(env, 'LAGOON_BRAVE_URL'), timeoutMs });
  } else {
    throw new Error(`LAGOON_SEARCH_PROVIDER must be "searxng" or "brave", got "${env.LAGOON_SEARCH_PROVIDER}"`);
  }
  return {
    name: provider.name,
    search: (query, opts) => provider.search(query, { ...opts, count: Math.min(opts.count, maxResults) }),
  };
}

function positiveInt(env: Record<string, string | undefined>, name: string, fallback: number): number {
  const text = env[name]?.trim();
  if (!text) return fallback;
  if (!/^\d+$/.test(text) || Number(text) < 1) throw new Error(`${name} must be a positive whole number, got "${env[name]}"`);
  return Number(text);
}

/** An http(s) URL setting; `missing` is the error when it is required and unset. */
function httpUrl(env: Record<string, string | undefined>, name: string, missing?: string): string | undefined {
  const text = env[name]?.trim();
  if (!text) {
    if (missing) throw new Error(missing);
    return undefined;
  }
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error(`${name} is not a valid URL: "${text}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`${name} must be an http or https URL, got "${text}"`);
  return text;
}
