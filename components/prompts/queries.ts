// The prompt library as server state: one list (the prompts page and the composer's `/` menu), and adding, editing
// and deleting a prompt (the user's own, or as the operator a shared one), each refreshing it.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { call } from '@/components/api/client.ts';
import type { PromptInput, PromptPatch } from '@/lib/wire.ts';

export const promptsKey = ['prompts'] as const;

export function usePrompts(enabled = true) {
  return useQuery({ queryKey: promptsKey, queryFn: ({ signal }) => call('GET /prompts', { signal }), enabled, staleTime: 30_000 });
}

function useRefresh() {
  const qc = useQueryClient();
  return () => qc.invalidateQueries({ queryKey: promptsKey });
}

export function useCreatePrompt() {
  const refresh = useRefresh();
  return useMutation({
    mutationFn: ({ shared, body }: { shared: boolean; body: PromptInput }) =>
      shared ? call('POST /operator/prompts', { body }) : call('POST /prompts', { body }),
    onSuccess: refresh,
  });
}

export function useUpdatePrompt() {
  const refresh = useRefresh();
  return useMutation({
    mutationFn: ({ id, shared, body }: { id: string; shared: boolean; body: PromptPatch }) =>
      shared ? call('PATCH /operator/prompts/:id', { params: { id }, body }) : call('PATCH /prompts/:id', { params: { id }, body }),
    onSuccess: refresh,
  });
}

export function useDeletePrompt() {
  const refresh = useRefresh();
  return useMutation({
    mutationFn: ({ id, shared }: { id: string; shared: boolean }) =>
      shared ? call('DELETE /operator/prompts/:id', { params: { id } }) : call('DELETE /prompts/:id', { params: { id } }),
    onSuccess: refresh,
  });
}
