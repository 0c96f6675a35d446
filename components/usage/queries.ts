// The dashboard's server state (TanStack Query): usage per period, the rate-limit meters and the key list.
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { call } from '@/components/api/client.ts';
import type { UsagePeriod } from '@/lib/wire.ts';

export const usageKeys = {
  usage: (days: UsagePeriod) => ['usage', days] as const,
  rateLimits: ['rate-limits'] as const,
  keys: ['api-keys'] as const,
};

export function useUsage(days: UsagePeriod) {
  return useQuery({
    queryKey: usageKeys.usage(days),
    queryFn: ({ signal }) => call('GET /usage', { query: { days }, signal }),
    // Switching periods keeps the previous figures on screen (dimmed) until the new ones arrive.
    placeholderData: keepPreviousData,
    refetchOnWindowFocus: true,
  });
}

export function useRateLimits() {
  return useQuery({
    queryKey: usageKeys.rateLimits,
    queryFn: ({ signal }) => call('GET /rate-limits', { signal }),
    // Windows are a minute long: a meter older than a few seconds would mislead.
    refetchInterval: 10_000,
    refetchOnWindowFocus: true,
  });
}

export function useApiKeys() {
  return useQuery({
    queryKey: usageKeys.keys,
    queryFn: ({ signal }) => call('GET /keys', { signal }),
  });
}
