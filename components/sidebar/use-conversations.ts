'use client';
// The signed-in user's conversations, newest activity first, one page at a time (GET /conversations?cursor=).
import { useInfiniteQuery } from '@tanstack/react-query';
import { api, qk } from '@/components/api/client.ts';
import type { ConversationPage } from '@/components/sidebar/conversation-cache.ts';

const PAGE_SIZE = 40;

export function useConversations() {
  return useInfiniteQuery({
    queryKey: qk.conversations,
    queryFn: ({ pageParam, signal }) =>
      api<ConversationPage>(`/conversations?limit=${PAGE_SIZE}${pageParam ? `&cursor=${encodeURIComponent(pageParam)}` : ''}`, { signal }),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
    refetchOnWindowFocus: true,
  });
}
