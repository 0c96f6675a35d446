'use client';
// The signed-in user's chats in no folder and not pinned or archived (those have their own lists, use-chat-lists.ts),
// newest activity first, one page at a time (GET /conversations?cursor=).
import { useInfiniteQuery } from '@tanstack/react-query';
import { call, qk } from '@/components/api/client.ts';

const PAGE_SIZE = 40;

export function useConversations() {
  return useInfiniteQuery({
    queryKey: qk.conversations,
    queryFn: ({ pageParam, signal }) => call('GET /conversations', { query: { limit: PAGE_SIZE, cursor: pageParam, folder: 'none', pinned: 0 }, signal }),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
    refetchOnWindowFocus: true,
  });
}
