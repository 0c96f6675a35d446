'use client';
// Chats whose title or messages match the search (GET /search?q=&folder=), with the matching text highlighted;
// archived chats are found too (marked). A folder choice narrows the search to that folder.
// data-testid: search-results, search-folder, search-hit (data-archived).
import { useTranslations } from 'use-intl';
import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useId, useState } from 'react';
import { useFolders } from '@/components/sidebar/use-organise.ts';
import { call, qk } from '@/components/api/client.ts';
import { Alert } from '@/components/ui/alert.tsx';
import { cn } from '@/components/ui/cn.ts';
import { Spinner } from '@/components/ui/spinner.tsx';
import { HighlightMatch } from '@/components/sidebar/highlight-match.tsx';

export function SearchResults({ query, activeId }: { query: string; activeId: string | null }) {
  const t = useTranslations('sidebar');
  const folders = useFolders().data?.items ?? [];
  const [folder, setFolder] = useState('');
  const selectId = useId();
  const q = useQuery({
    queryKey: [...qk.search(query), folder],
    queryFn: ({ signal }) => call('GET /search', { query: { q: query, folder }, signal }),
    staleTime: 10_000,
    placeholderData: (prev) => prev,
  });
  // Only with folders to choose from (and kept while a search runs, so the choice does not jump away).
  const picker = folders.length > 0 && (
    <div className="px-1 pb-2">
      <label htmlFor={selectId} className="sr-only">
        {t('searchIn')}
      </label>
      <select
        id={selectId}
        data-testid="search-folder"
        value={folder}
        onChange={(e) => setFolder(e.target.value)}
        className="h-8 w-full rounded-lg border border-border bg-background px-2 text-sm"
      >
        <option value="">{t('inAll')}</option>
        {folders.map((f) => (
          <option key={f.id} value={f.id}>
            {t('inFolder', { name: f.name })}
          </option>
        ))}
      </select>
    </div>
  );

  if (q.isPending) {
    return (
      <div>
        {picker}
        <div className="flex justify-center p-4 text-muted-foreground">
          <Spinner label={t('searching')} />
        </div>
      </div>
    );
  }
  if (q.isError)
    return (
      <div>
        {picker}
        <Alert className="m-2" title={t('searchFailed')}>
          {q.error.message}
        </Alert>
      </div>
    );
  const hits = q.data.hits;
  return (
    <div data-testid="search-results" aria-busy={q.isFetching}>
      {picker}
      <h2 className="px-3 pb-1 text-xs font-medium text-muted-foreground">
        <span role="status">{hits.length ? t('found', { count: hits.length }) : t('noMatch')}</span>
      </h2>
      <ul className="flex flex-col gap-0.5">
        {hits.map((h) => (
          <li key={`${h.conversation.id}:${h.messageId ?? 'title'}`}>
            <Link
              href={`/c/${encodeURIComponent(h.conversation.id)}`}
              aria-current={h.conversation.id === activeId ? 'page' : undefined}
              data-testid="search-hit"
              data-archived={h.conversation.archived}
              className={cn('block rounded-lg px-3 py-2 hover:bg-accent', h.conversation.id === activeId && 'bg-accent')}
            >
              <span className="flex items-center gap-1.5 text-sm font-medium">
                <span className="truncate">
                  <HighlightMatch text={h.conversation.title} query={query} />
                </span>
                {h.conversation.archived && (
                  <span className="shrink-0 rounded bg-muted px-1.5 text-[11px] font-normal text-muted-foreground">{t('archived')}</span>
                )}
              </span>
              {h.messageId && (
                <span className="mt-0.5 line-clamp-2 block text-xs text-muted-foreground">
                  <HighlightMatch text={h.snippet} query={query} />
                </span>
              )}
            </Link>
          </li>
        ))}
      </ul>
    </div>
  );
}
