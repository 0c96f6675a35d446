// The operator models page's server state: the models (file and added, with engine status), and the changes: add an
// upstream, test an engine, disable/enable, set or reset prices, remove. Each change refreshes the list, the chat's
// model list (the picker shows the change at once) and the audit log.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, qk } from '@/components/api/client.ts';
import type { EngineTestResult, OperatorEngineTest, OperatorModel, OperatorModelInput, OperatorModelPatch, OperatorModelsPage } from '@/lib/wire.ts';

const KEY = ['operator', 'models'] as const;

export function useOperatorModels() {
  return useQuery({ queryKey: KEY, queryFn: ({ signal }) => api<OperatorModelsPage>('/operator/models', { signal }), refetchOnWindowFocus: true });
}

function useRefresh() {
  const qc = useQueryClient();
  return () => {
    void qc.invalidateQueries({ queryKey: ['operator'] });
    void qc.invalidateQueries({ queryKey: qk.models });
  };
}

const at = (id: string) => `/operator/models/${encodeURIComponent(id)}`;

export function useAddModel() {
  const refresh = useRefresh();
  return useMutation({
    mutationFn: (body: OperatorModelInput) => api<{ model: OperatorModel }>('/operator/models', { method: 'POST', body }),
    onSuccess: refresh,
  });
}

export function usePatchModel() {
  const refresh = useRefresh();
  return useMutation({
    mutationFn: ({ id, body }: { id: string; body: OperatorModelPatch }) => api<{ model: OperatorModel }>(at(id), { method: 'PATCH', body }),
    onSuccess: refresh,
  });
}

export function useRemoveModel() {
  const refresh = useRefresh();
  return useMutation({ mutationFn: (id: string) => api<void>(at(id), { method: 'DELETE' }), onSuccess: refresh });
}

export function useTestModel() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api<EngineTestResult>(`${at(id)}/test`, { method: 'POST' }),
    onSuccess: () => void qc.invalidateQueries({ queryKey: KEY }),
  });
}

export function useTestEngine() {
  return useMutation({ mutationFn: (body: OperatorEngineTest) => api<EngineTestResult>('/operator/engines/test', { method: 'POST', body }) });
}
