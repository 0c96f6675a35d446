// The operator page's server state: the accounts (searched, paged), the audit log, and the changes (a grant, the
// DIEM allowance, the tier, disabling). Each change refreshes the accounts, the audit log and the operator's own
// billing figures (a grant to their own account shows there too).
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { call } from '@/components/api/client.ts';
import type { OperatorAccountPatch, OperatorGrantRequest } from '@/lib/wire.ts';

export const ACCOUNTS_PAGE_SIZE = 25;
export const AUDIT_PAGE_SIZE = 20;

export function useOperatorAccounts(search: string, page: number) {
  return useQuery({
    queryKey: ['operator', 'accounts', search, page],
    queryFn: ({ signal }) => call('GET /operator/accounts', { query: { page, limit: ACCOUNTS_PAGE_SIZE, q: search }, signal }),
    placeholderData: keepPreviousData,
    refetchOnWindowFocus: true,
  });
}

export function useAudit(page: number) {
  return useQuery({
    queryKey: ['operator', 'audit', page],
    queryFn: ({ signal }) => call('GET /operator/audit', { query: { page, limit: AUDIT_PAGE_SIZE }, signal }),
    placeholderData: keepPreviousData,
  });
}

function useRefresh() {
  const qc = useQueryClient();
  return () => {
    void qc.invalidateQueries({ queryKey: ['operator'] });
    void qc.invalidateQueries({ queryKey: ['billing'] });
  };
}

export function useGrant() {
  const refresh = useRefresh();
  return useMutation({
    mutationFn: ({ id, body }: { id: string; body: OperatorGrantRequest }) => call('POST /operator/accounts/:id/grant', { params: { id }, body }),
    onSuccess: refresh,
  });
}

export function usePatchAccount() {
  const refresh = useRefresh();
  return useMutation({
    mutationFn: ({ id, body }: { id: string; body: OperatorAccountPatch }) => call('PATCH /operator/accounts/:id', { params: { id }, body }),
    onSuccess: refresh,
  });
}
