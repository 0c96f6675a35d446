// The operator page's server state: the accounts (searched, paged), the audit log, and the changes (a grant, the
// DIEM allowance, the tier, disabling). Each change refreshes the accounts, the audit log and the operator's own
// billing figures (a grant to their own account shows there too).
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '@/components/api/client.ts';
import type { OperatorAccount, OperatorAccountPatch, OperatorAccountsPage, OperatorAuditPage, OperatorGrantRequest } from '@/lib/wire.ts';

export const ACCOUNTS_PAGE_SIZE = 25;
export const AUDIT_PAGE_SIZE = 20;

export function useOperatorAccounts(search: string, page: number) {
  return useQuery({
    queryKey: ['operator', 'accounts', search, page],
    queryFn: ({ signal }) => {
      const q = new URLSearchParams({ page: String(page), limit: String(ACCOUNTS_PAGE_SIZE) });
      if (search) q.set('q', search);
      return api<OperatorAccountsPage>(`/operator/accounts?${q}`, { signal });
    },
    placeholderData: keepPreviousData,
    refetchOnWindowFocus: true,
  });
}

export function useAudit(page: number) {
  return useQuery({
    queryKey: ['operator', 'audit', page],
    queryFn: ({ signal }) => api<OperatorAuditPage>(`/operator/audit?page=${page}&limit=${AUDIT_PAGE_SIZE}`, { signal }),
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
    mutationFn: ({ id, body }: { id: string; body: OperatorGrantRequest }) =>
      api<{ account: OperatorAccount }>(`/operator/accounts/${encodeURIComponent(id)}/grant`, { method: 'POST', body }),
    onSuccess: refresh,
  });
}

export function usePatchAccount() {
  const refresh = useRefresh();
  return useMutation({
    mutationFn: ({ id, body }: { id: string; body: OperatorAccountPatch }) =>
      api<{ account: OperatorAccount }>(`/operator/accounts/${encodeURIComponent(id)}`, { method: 'PATCH', body }),
    onSuccess: refresh,
  });
}
