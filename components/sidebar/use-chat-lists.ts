'use client';
// The sidebar's other chat lists, each a paged query under qk.conversations (so every change to the history
// refreshes them too): pinned chats, one folder's chats, archived chats. They load only while shown.
import { useInfiniteQuery } from '@tanstack/react-query';
import { call, qk } from '@/components/api/client.ts';

const PAGE_SIZE = 40;

export type ChatListFilter = { pinned: true } | { folder: string } | { archived: true };

const queryOf = (f: ChatListFilter) => ('pinned' in f ? { pinned: 1 } : 'folder' in f ? { folder: f.folder } : { archived: 1 });

export function useChatList(filter: ChatListFilter, enabled = true) {
  return useInfiniteQuery({
    queryKey: [...qk.conversations, filter],
    queryFn: ({ pageParam, signal }) => call('GET /conversations', { query: { limit: PAGE_SIZE, cursor: pageParam, ...queryOf(filter) }, signal }),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
    enabled,
  });
}
