// The operator models page's server state: the models (file and added, with engine status), and the changes: add an
// upstream, test an engine, disable/enable, set or reset prices, remove. Each change refreshes the list, the chat's
// model list (the picker shows the change at once) and the audit log.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { call, qk } from '@/components/api/client.ts';
import type { OperatorEngineTest, OperatorModelInput, OperatorModelPatch } from '@/lib/wire.ts';

const KEY = ['operator', 'models'] as const;

export function useOperatorModels() {
  return useQuery({ queryKey: KEY, queryFn: ({ signal }) => call('GET /operator/models', { signal }), refetchOnWindowFocus: true });
}

function useRefresh() {
  const qc = useQueryClient();
  return () => {
    void qc.invalidateQueries({ queryKey: ['operator'] });
    void qc.invalidateQueries({ queryKey: qk.models });
  };
}

export function useAddModel() {
  const refresh = useRefresh();
  return useMutation({
    mutationFn: (body: OperatorModelInput) => call('POST /operator/models', { body }),
    onSuccess: refresh,
  });
}

export function usePatchModel() {
  const refresh = useRefresh();
  return useMutation({
    mutationFn: ({ id, body }: { id: string; body: OperatorModelPatch }) => call('PATCH /operator/models/:id', { params: { id }, body }),
    onSuccess: refresh,
  });
}

export function useRemoveModel() {
  const refresh = useRefresh();
  return useMutation({ mutationFn: (id: string) => call('DELETE /operator/models/:id', { params: { id } }), onSuccess: refresh });
}

export function useTestModel() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => call('POST /operator/models/:id/test', { params: { id } }),
    onSuccess: () => void qc.invalidateQueries({ queryKey: KEY }),
  });
}

export function useTestEngine() {
  return useMutation({ mutationFn: (body: OperatorEngineTest) => call('POST /operator/engines/test', { body }) });
}

/** The model new chats start on (null: the built-in choice). */
export function useSetDefaultModel() {
  const refresh = useRefresh();
  return useMutation({ mutationFn: (modelId: string | null) => call('PUT /operator/default-model', { body: { modelId } }), onSuccess: refresh });
}
