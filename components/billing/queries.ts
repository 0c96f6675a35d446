// The billing page's server state (TanStack Query): the summary and the statement pages, keyed by their filters.
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { call } from '@/components/api/client.ts';
import type { StatementKind } from '@/lib/wire.ts';

export interface StatementFilters {
  /** UTC days, YYYY-MM-DD, both included (the request's `to` is the day after). */
  from: string;
  to: string;
  keyId: string;
  modelId: string;
  kind: StatementKind | '';
}

export const NO_FILTERS: StatementFilters = { from: '', to: '', keyId: '', modelId: '', kind: '' };
export const STATEMENT_PAGE_SIZE = 25;

export const billingKeys = {
  summary: ['billing', 'summary'] as const,
  statement: (f: StatementFilters, page: number) => ['billing', 'statement', f, page] as const,
  all: ['billing'] as const,
};

const nextDay = (day: string) => new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);

/** The filters as the statement routes take them (`to` exclusive); empty ones are left out of the query. */
export function filterQuery(f: StatementFilters): Record<string, string> {
  return { from: f.from, to: f.to && nextDay(f.to), keyId: f.keyId, modelId: f.modelId, kind: f.kind };
}

export function useBillingSummary() {
  return useQuery({
    queryKey: billingKeys.summary,
    queryFn: ({ signal }) => call('GET /billing/summary', { signal }),
    refetchOnWindowFocus: true,
    // Balances and what is held move with every request: keep them close to live while the page is in front (a
    // summary reads 30 days of usage, so not more often than this).
    refetchInterval: 30_000,
  });
}

export function useStatement(f: StatementFilters, page: number) {
  return useQuery({
    queryKey: billingKeys.statement(f, page),
    queryFn: ({ signal }) => call('GET /billing/statement', { query: { ...filterQuery(f), page, limit: STATEMENT_PAGE_SIZE }, signal }),
    placeholderData: keepPreviousData,
    refetchOnWindowFocus: true,
  });
}
