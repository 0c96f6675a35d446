// The chat's reads: the conversation (all branches), the model catalogue, attachment limits and characters.
// Keys come from components/api/client.ts so the sidebar and the characters page share these caches.
import { useQuery } from '@tanstack/react-query';
import { api, qk } from '@/components/api/client';
import type { AppCharacter, AppConversationWithMessages, AppModel, AttachmentLimits } from '@/lib/app/wire.ts';

export function useConversation(id: string | null) {
  return useQuery({
    queryKey: qk.conversation(id ?? ''),
    queryFn: ({ signal }) => api<AppConversationWithMessages>(`/conversations/${encodeURIComponent(id!)}`, { signal }),
    enabled: id !== null,
    // Sends, streams and stops write into this cache themselves; a background refetch mid-stream would only
    // bring back a stale partial row.
    staleTime: 60_000,
    refetchOnWindowFocus: false,
    retry: (n, err) => n < 2 && (err as { status?: number }).status !== 404,
  });
}

export function useModels() {
  return useQuery({
    queryKey: qk.models,
    // The cache holds the response body as sent, so other screens reading the same key agree on its shape.
    queryFn: ({ signal }) => api<{ models: AppModel[] }>('/models', { signal }),
    select: (r) => r.models,
    staleTime: 5 * 60_000,
  });
}

export function useLimits() {
  return useQuery({
    queryKey: qk.limits,
    queryFn: ({ signal }) => api<AttachmentLimits>('/limits', { signal }),
    staleTime: 30 * 60_000,
  });
}

/** All characters (the unfiltered list the characters page also loads); the chat looks one up by slug. */
export function useCharacters(enabled: boolean) {
  return useQuery({
    queryKey: qk.characters(''),
    queryFn: ({ signal }) => api<{ characters: AppCharacter[] }>('/characters?q=', { signal }),
    select: (r) => r.characters,
    enabled,
    staleTime: 5 * 60_000,
  });
}
