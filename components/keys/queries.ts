// The key pages' server state: the key report, and creating, editing and revoking keys. Every change refreshes the
// key lists (this page's and the usage page's) and the billing filters.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { call, qk } from '@/components/api/client.ts';
import type { CreateApiKeyRequest, UpdateApiKeyRequest } from '@/lib/wire.ts';

export const keyKeys = { report: ['api-keys', 'report'] as const, all: ['api-keys'] as const };

export function useKeysReport() {
  return useQuery({
    queryKey: keyKeys.report,
    queryFn: ({ signal }) => call('GET /api-keys', { signal }),
    refetchOnWindowFocus: true,
    // Spend against each cap moves with every request made with the key.
    refetchInterval: 15_000,
  });
}

function useRefresh() {
  const qc = useQueryClient();
  return () => {
    void qc.invalidateQueries({ queryKey: keyKeys.all });
    void qc.invalidateQueries({ queryKey: ['billing'] });
  };
}

/** The new key's secret lives only in this mutation's state: reset() forgets it once the dialog closes. */
export function useCreateKey() {
  const refresh = useRefresh();
  return useMutation({
    mutationFn: (body: CreateApiKeyRequest) => call('POST /api-keys', { body }),
    onSuccess: refresh,
  });
}

export function useUpdateKey() {
  const refresh = useRefresh();
  return useMutation({
    mutationFn: ({ id, body }: { id: string; body: UpdateApiKeyRequest }) => call('PATCH /api-keys/:id', { params: { id }, body }),
    onSuccess: refresh,
  });
}

export function useRevokeKey() {
  const refresh = useRefresh();
  return useMutation({
    mutationFn: (id: string) => call('DELETE /api-keys/:id', { params: { id } }),
    onSuccess: refresh,
  });
}

/** The model the snippets name: the catalogue's default (the chat's own cache). */
export function useDefaultModel(): string {
  const q = useQuery({ queryKey: qk.models, queryFn: ({ signal }) => call('GET /models', { signal }), staleTime: 5 * 60_000 });
  const models = q.data?.models ?? [];
  return (models.find((m) => m.isDefault) ?? models[0])?.id ?? 'MODEL_ID';
}
