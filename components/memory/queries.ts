// The user's memories as server state: one list (the memory page, the chat's suggestion chips), and saving, editing
// and deleting, each refreshing it.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { call } from '@/components/api/client.ts';
import type { AppMemoryList, CreateMemoryRequest, UpdateMemoryRequest } from '@/lib/wire.ts';

export const memoryKey = ['memories'] as const;

export function useMemories(enabled = true) {
  return useQuery({ queryKey: memoryKey, queryFn: ({ signal }) => call('GET /memories', { signal }), enabled, staleTime: 30_000 });
}

function useRefresh() {
  const qc = useQueryClient();
  return () => qc.invalidateQueries({ queryKey: memoryKey });
}

export function useCreateMemory() {
  const refresh = useRefresh();
  return useMutation({ mutationFn: (body: CreateMemoryRequest) => call('POST /memories', { body }), onSuccess: refresh });
}

/** Switching a memory on or off shows at once; a refusal puts the list back as the server has it. */
export function useUpdateMemory() {
  const qc = useQueryClient();
  const refresh = useRefresh();
  return useMutation({
    mutationFn: ({ id, body }: { id: string; body: UpdateMemoryRequest }) => call('PATCH /memories/:id', { params: { id }, body }),
    onMutate: ({ id, body }) => {
      if (body.enabled === undefined) return;
      qc.setQueryData<AppMemoryList>(memoryKey, (old) => old && { ...old, items: old.items.map((m) => (m.id === id ? { ...m, enabled: body.enabled! } : m)) });
    },
    onSettled: refresh,
  });
}

export function useDeleteMemory() {
  const refresh = useRefresh();
  return useMutation({ mutationFn: (id: string) => call('DELETE /memories/:id', { params: { id } }), onSuccess: refresh });
}
