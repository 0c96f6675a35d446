'use client';
// One of the sidebar's smaller chat lists (pinned, a folder's, archived): its chats, a page at a time, with
// "Show more" rather than loading on scroll (these lists sit above the main one).
// data-testid: chat-list-more.
import { useTranslations } from 'use-intl';
import { useMemo } from 'react';
import { Button } from '@/components/ui/button.tsx';
import { Spinner } from '@/components/ui/spinner.tsx';
import { ConversationItem } from '@/components/sidebar/conversation-item.tsx';
import { type ChatListFilter, useChatList } from '@/components/sidebar/use-chat-lists.ts';

export function ChatListSection({ filter, activeId, empty, testId }: { filter: ChatListFilter; activeId: string | null; empty?: string; testId?: string }) {
  const t = useTranslations('sidebar');
  const q = useChatList(filter);
  const items = useMemo(() => q.data?.pages.flatMap((p) => p.items) ?? [], [q.data]);
  if (q.isPending) return <Spinner label={t('loadingChats')} className="mx-3 my-1 size-4 text-muted-foreground" />;
  if (q.isError && !items.length) return <p className="px-3 text-xs text-error">{t('loadFailedHere', { error: q.error.message })}</p>;
  if (!items.length) return empty ? <p className="px-3 py-1 text-xs text-muted-foreground">{empty}</p> : null;
  return (
    <ul className="flex flex-col gap-0.5" data-testid={testId}>
      {items.map((c) => (
        <ConversationItem key={c.id} conversation={c} active={c.id === activeId} />
      ))}
      {q.hasNextPage && (
        <li>
          <Button
            size="sm"
            variant="ghost"
            className="w-full"
            pending={q.isFetchingNextPage}
            onClick={() => void q.fetchNextPage()}
            data-testid="chat-list-more"
          >
            {t('showMore')}
          </Button>
        </li>
      )}
    </ul>
  );
}

/** The pinned chats, above everything else; nothing at all when there are none. */
export function PinnedSection({ activeId }: { activeId: string | null }) {
  const t = useTranslations('sidebar');
  const q = useChatList({ pinned: true });
  if (!q.data?.pages.some((p) => p.items.length)) return null;
  return (
    <section aria-label={t('pinned')} data-testid="pinned-section">
      <h2 className="px-3 pb-1 text-xs font-medium text-muted-foreground">{t('pinned')}</h2>
      <ChatListSection filter={{ pinned: true }} activeId={activeId} />
    </section>
  );
}
