// A search provider the operator configured (Config.search / searchAll, from LAGOON_SEARCH_PROVIDER and its settings,
// parsed and checked at start by lib/config.ts), or undefined when search is off.

import type { SearchConfig } from '../../config.ts';
import type { SearchProvider } from '../types.ts';
import { createBrave } from './brave.ts';
import { createSearxng } from './searxng.ts';

export function searchProviderFrom(cfg: SearchConfig): SearchProvider;
export function searchProviderFrom(cfg: SearchConfig | undefined): SearchProvider | undefined;
export function searchProviderFrom(cfg: SearchConfig | undefined): SearchProvider | undefined {
  if (!cfg) return undefined;
  const provider =
    cfg.provider === 'searxng'
      ? createSearxng({ baseUrl: cfg.baseUrl, timeoutMs: cfg.timeoutMs })
      : createBrave({ apiKey: cfg.apiKey, baseUrl: cfg.baseUrl, timeoutMs: cfg.timeoutMs });
  const { maxResults } = cfg;
  return {
    name: provider.name,
    search: (query, opts) => provider.search(query, { ...opts, count: Math.min(opts.count, maxResults) }),
  };
}
