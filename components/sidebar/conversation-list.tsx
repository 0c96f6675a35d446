'use client';
// The chat history (chats in no folder, not pinned or archived), grouped by last activity, loading further pages as
// the list is scrolled to its end. A chat dragged here from a folder leaves the folder.
import { useTranslations } from 'use-intl';
import { useEffect, useMemo, useRef } from 'react';
import { Alert } from '@/components/ui/alert.tsx';
import { Button } from '@/components/ui/button.tsx';
import { Spinner } from '@/components/ui/spinner.tsx';
import { ConversationItem } from '@/components/sidebar/conversation-item.tsx';
import { type DateGroup, groupByDate } from '@/components/sidebar/group-by-date.ts';
import { useConversations } from '@/components/sidebar/use-conversations.ts';
import { useChatDrop } from '@/components/sidebar/folder-list.tsx';
import { useOrganise } from '@/components/sidebar/use-organise.ts';
import { cn } from '@/components/ui/cn.ts';

/** The catalogue's name for each date group. */
const GROUP_KEYS: Record<DateGroup, 'today' | 'yesterday' | 'week' | 'older'> = {
  Today: 'today',
  Yesterday: 'yesterday',
  'Previous 7 days': 'week',
  Older: 'older',
};

export function ConversationList({ activeId }: { activeId: string | null }) {
  const t = useTranslations('sidebar');
  const q = useConversations();
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = q;
  const sentinel = useRef<HTMLDivElement>(null);
  const items = useMemo(() => q.data?.pages.flatMap((p) => p.items) ?? [], [q.data]);
  // Regrouped when the list changes; "today" is as of that moment, which is fresh enough for a sidebar.
  const groups = useMemo(() => groupByDate(items, Date.now()), [items]);
  const organise = useOrganise();
  const drop = useChatDrop((id) => {
    if (!items.some((c) => c.id === id)) organise.mutate({ id, change: { folderId: null } });
  });

  useEffect(() => {
    const el = sentinel.current;
    if (!el || !hasNextPage) return;
    const io = new IntersectionObserver(
      (entries) => {
        if (entries.some((e) => e.isIntersecting) && !isFetchingNextPage) void fetchNextPage();
      },
      { rootMargin: '200px' },
    );
    io.observe(el);
    return () => io.disconnect();
  }, [hasNextPage, isFetchingNextPage, fetchNextPage]);

  if (q.isPending) {
    return (
      <div className="flex justify-center p-4 text-muted-foreground">
        <Spinner label={t('loadingChats')} />
      </div>
    );
  }
  if (q.isError && !items.length) {
    return (
      <Alert
        className="m-2"
        title={t('loadFailed')}
        action={
          <Button size="sm" variant="secondary" onClick={() => void q.refetch()}>
            {t('retry')}
          </Button>
        }
      >
        {q.error.message}
      </Alert>
    );
  }
  if (!items.length)
    return (
      <p {...drop.handlers} className={cn('rounded-lg px-3 py-2 text-sm text-muted-foreground', drop.over && 'bg-accent')}>
        {t('noChats')}
      </p>
    );

  return (
    <div {...drop.handlers} className={cn('flex flex-col gap-4 rounded-lg pb-2', drop.over && 'bg-accent/50')} data-testid="conversation-list">
      {groups.map(({ group, items: list }) => (
        <section key={group} aria-label={t(`groups.${GROUP_KEYS[group]}`)}>
          <h2 className="px-3 pb-1 text-xs font-medium text-muted-foreground">{t(`groups.${GROUP_KEYS[group]}`)}</h2>
          <ul className="flex flex-col gap-0.5">
            {list.map((c) => (
              <ConversationItem key={c.id} conversation={c} active={c.id === activeId} />
            ))}
          </ul>
        </section>
      ))}
      <div ref={sentinel} />
      {isFetchingNextPage && (
        <div className="flex justify-center text-muted-foreground">
          <Spinner label={t('loadingMore')} />
        </div>
      )}
      {q.isFetchNextPageError && (
        <div className="px-2">
          <Button size="sm" variant="secondary" className="w-full" onClick={() => void fetchNextPage()}>
            {t('loadMoreFailed')}
          </Button>
        </div>
      )}
    </div>
  );
}
