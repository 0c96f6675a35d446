'use client';
// Chats whose title or messages match the search (GET /search?q=), with the matching text highlighted.
import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { call, qk } from '@/components/api/client.ts';
import { Alert } from '@/components/ui/alert.tsx';
import { cn } from '@/components/ui/cn.ts';
import { Spinner } from '@/components/ui/spinner.tsx';
import { HighlightMatch } from '@/components/sidebar/highlight-match.tsx';

export function SearchResults({ query, activeId }: { query: string; activeId: string | null }) {
  const q = useQuery({
    queryKey: qk.search(query),
    queryFn: ({ signal }) => call('GET /search', { query: { q: query }, signal }),
    staleTime: 10_000,
    placeholderData: (prev) => prev,
  });

  if (q.isPending) {
    return (
      <div className="flex justify-center p-4 text-muted-foreground">
        <Spinner label="Searching" />
      </div>
    );
  }
  if (q.isError)
    return (
      <Alert className="m-2" title="Search failed">
        {q.error.message}
      </Alert>
    );
  const hits = q.data.hits;
  return (
    <div data-testid="search-results" aria-busy={q.isFetching}>
      <h2 className="px-3 pb-1 text-xs font-medium text-muted-foreground">
        <span role="status">{hits.length ? `${hits.length} ${hits.length === 1 ? 'chat' : 'chats'} found` : 'No chats match'}</span>
      </h2>
      <ul className="flex flex-col gap-0.5">
        {hits.map((h) => (
          <li key={`${h.conversation.id}:${h.messageId ?? 'title'}`}>
            <Link
              href={`/c/${encodeURIComponent(h.conversation.id)}`}
              aria-current={h.conversation.id === activeId ? 'page' : undefined}
              data-testid="search-hit"
              className={cn('block rounded-lg px-3 py-2 hover:bg-accent', h.conversation.id === activeId && 'bg-accent')}
            >
              <span className="block truncate text-sm font-medium">
                <HighlightMatch text={h.conversation.title} query={query} />
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
