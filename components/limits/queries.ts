// The rate-limit page's server state: the chosen key's meters per model (refreshed every few seconds, as a window is
// a minute long) and the breach log, a filtered page at a time.
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api } from '@/components/api/client.ts';
import type { BreachKind, BreachPage, LimitsReport } from '@/lib/wire.ts';

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
    queryFn: ({ signal }) => api<LimitsReport>(`/rate-limits/models${keyId ? `?keyId=${encodeURIComponent(keyId)}` : ''}`, { signal }),
    placeholderData: keepPreviousData,
    refetchInterval: 5_000,
    refetchOnWindowFocus: true,
  });
}

export function useBreaches(f: BreachFilters, page: number) {
  return useQuery({
    queryKey: ['rate-limits', 'log', f, page],
    queryFn: ({ signal }) => {
      const q = new URLSearchParams({ page: String(page), limit: String(LOG_PAGE_SIZE) });
      if (f.type) q.set('type', f.type);
      if (f.modelId) q.set('modelId', f.modelId);
      if (f.keyId) q.set('keyId', f.keyId);
      return api<BreachPage>(`/rate-limits/log?${q}`, { signal });
    },
    placeholderData: keepPreviousData,
    refetchInterval: 15_000,
  });
}
