// The usage page's server state (TanStack Query): usage per period.
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { call } from '@/components/api/client.ts';
import type { UsagePeriod } from '@/lib/wire.ts';

export const usageKeys = {
  usage: (days: UsagePeriod) => ['usage', days] as const,
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
