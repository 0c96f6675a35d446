// Writes into the TanStack Query cache for a conversation, so sends, streams and stops show up without a refetch,
// and the sidebar's list is told when a conversation changed (title, order).
import type { QueryClient } from '@tanstack/react-query';
import { qk } from '@/components/api/client';
import type { AppConversation, AppConversationWithMessages, AppMessage } from '@/lib/wire.ts';

export function upsertMessages(qc: QueryClient, conversationId: string, messages: AppMessage[]): void {
  qc.setQueryData<AppConversationWithMessages>(qk.conversation(conversationId), (old) => {
    if (!old) return old;
    const next = old.messages.slice();
    for (const m of messages) {
      const i = next.findIndex((x) => x.id === m.id);
      if (i === -1) next.push(m);
      else next[i] = m;
    }
    return { ...old, messages: next };
  });
}

export function mergeConversation(qc: QueryClient, conversation: AppConversation): void {
  qc.setQueryData<AppConversationWithMessages>(qk.conversation(conversation.id), (old) => (old ? { ...old, ...conversation, messages: old.messages } : old));
  void qc.invalidateQueries({ queryKey: qk.conversations });
}

/** Seeds a brand-new conversation's cache entry so its page renders at once after navigation. */
export function seedConversation(qc: QueryClient, conversation: AppConversation, messages: AppMessage[]): void {
  qc.setQueryData<AppConversationWithMessages>(qk.conversation(conversation.id), { ...conversation, messages });
  void qc.invalidateQueries({ queryKey: qk.conversations });
}

export function cachedMessage(qc: QueryClient, conversationId: string, id: string): AppMessage | undefined {
  return qc.getQueryData<AppConversationWithMessages>(qk.conversation(conversationId))?.messages.find((m) => m.id === id);
}
