// The conversation list's cache (an infinite query under qk.conversations) and the edits other parts of the app make
// to it. The chat view may call these to show a new title at once; invalidating qk.conversations also works.
import type { InfiniteData, QueryClient } from '@tanstack/react-query';
import { qk } from '@/components/api/client.ts';
import type { AppConversation } from '@/lib/wire.ts';

export interface ConversationPage {
  items: AppConversation[];
  nextCursor: string | null;
}

export type ConversationPages = InfiniteData<ConversationPage, string | null>;

/** Applies `patch` to the conversation wherever it is cached (the sidebar's lists and its own query). */
export function patchConversationInCache(qc: QueryClient, id: string, patch: Partial<AppConversation>): void {
  // Every list under qk.conversations: the main one, and the pinned, folder and archived ones (use-chat-lists.ts).
  qc.setQueriesData<ConversationPages>(
    { queryKey: qk.conversations },
    (old) => old && { ...old, pages: old.pages.map((p) => ({ ...p, items: p.items.map((c) => (c.id === id ? { ...c, ...patch } : c)) })) },
  );
  qc.setQueryData<AppConversation>(qk.conversation(id), (old) => old && { ...old, ...patch });
}

export function removeConversationFromCache(qc: QueryClient, id: string): void {
  qc.setQueriesData<ConversationPages>(
    { queryKey: qk.conversations },
    (old) => old && { ...old, pages: old.pages.map((p) => ({ ...p, items: p.items.filter((c) => c.id !== id) })) },
  );
  qc.removeQueries({ queryKey: qk.conversation(id), exact: true });
  // Search hits may still name it.
  qc.removeQueries({ queryKey: ['search'] });
}
