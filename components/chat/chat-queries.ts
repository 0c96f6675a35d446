// The chat's reads: the conversation (all branches), the model catalogue, attachment limits and characters.
// Keys come from components/api/client.ts so the sidebar and the characters page share these caches.
import { useQuery } from '@tanstack/react-query';
import { call, qk } from '@/components/api/client';

/** The browser's id of a temporary chat (never a stored conversation's). */
export const isTemporaryChat = (id: string | null): boolean => !!id?.startsWith('temporary-');

export function useConversation(id: string | null) {
  return useQuery({
    queryKey: qk.conversation(id ?? ''),
    queryFn: ({ signal }) => call('GET /conversations/:id', { params: { id: id! }, signal }),
    // A temporary chat lives in this cache only (use-chat-controller.ts): there is nothing to fetch.
    enabled: id !== null && !isTemporaryChat(id),
    // Sends, streams and stops write into this cache themselves; a background refetch mid-stream would only
    // bring back a stale partial row.
    staleTime: 60_000,
    refetchOnWindowFocus: false,
    retry: (n, err) => n < 2 && (err as { status?: number }).status !== 404,
  });
}

const fetchModels = ({ signal }: { signal: AbortSignal }) => call('GET /models', { signal });

export function useModels() {
  return useQuery({
    queryKey: qk.models,
    // The cache holds the response body as sent, so other screens reading the same key agree on its shape.
    queryFn: fetchModels,
    select: (r) => r.models,
    staleTime: 5 * 60_000,
  });
}

/** Whether chats here can search the web, and why not (from the same response as the models). */
export function useWebSearchAvailability() {
  return useQuery({ queryKey: qk.models, queryFn: fetchModels, select: (r) => r.webSearch, staleTime: 5 * 60_000 });
}

export function useLimits() {
  return useQuery({
    queryKey: qk.limits,
    queryFn: ({ signal }) => call('GET /limits', { signal }),
    staleTime: 30 * 60_000,
  });
}

/** The chat's character, by slug (the key the characters pages use for the same record, so they share the cache). */
export function useChatCharacter(slug: string | null) {
  return useQuery({
    queryKey: ['characters', 'one', slug ?? ''],
    queryFn: ({ signal }) => call('GET /characters/:slug', { params: { slug: slug ?? '' }, signal }),
    select: (r) => r.character,
    enabled: slug !== null,
    staleTime: 5 * 60_000,
  });
}
