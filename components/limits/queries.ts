// The rate-limit page's server state: the chosen key's meters per model (refreshed every few seconds, as a window is
// a minute long) and the breach log, a filtered page at a time.
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { call } from '@/components/api/client.ts';
import type { BreachKind } from '@/lib/wire.ts';

export interface BreachFilters {
  type: BreachKind | '';
  modelId: string;
  keyId: string;
}

export const LOG_PAGE_SIZE = 25;
export const ANY_BREACH: BreachFilters = { type: '', modelId: '', keyId: '' };

export function useLimitsReport(keyId: string | null) {
  return useQuery({
    queryKey: ['rate-limits', 'models', keyId],
    queryFn: ({ signal }) => call('GET /rate-limits/models', { query: { keyId }, signal }),
    placeholderData: keepPreviousData,
    refetchInterval: 5_000,
    refetchOnWindowFocus: true,
  });
}

export function useBreaches(f: BreachFilters, page: number) {
  return useQuery({
    queryKey: ['rate-limits', 'log', f, page],
    queryFn: ({ signal }) => call('GET /rate-limits/log', { query: { page, limit: LOG_PAGE_SIZE, type: f.type, modelId: f.modelId, keyId: f.keyId }, signal }),
    placeholderData: keepPreviousData,
    refetchInterval: 15_000,
  });
}
