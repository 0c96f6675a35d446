'use client';
// Browse and search the characters, then start a chat with one (→ /?character=<slug>).
// data-testid: characters-page, characters-search, character-card (data-slug), start-character-chat.
import { useQuery } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { api, qk } from '@/components/api/client.ts';
import { inputClasses } from '@/components/auth/text-field.tsx';
import { Alert } from '@/components/ui/alert.tsx';
import { Button } from '@/components/ui/button.tsx';
import { SearchIcon } from '@/components/ui/icons.tsx';
import { Spinner } from '@/components/ui/spinner.tsx';
import type { AppCharacter } from '@/lib/app/wire.ts';
import { CharacterCard } from '@/components/characters/character-card.tsx';
import { filterCharacters } from '@/components/characters/filter-characters.ts';

export function CharactersPage() {
  const [search, setSearch] = useState('');
  // The whole list once (it is small, and the chat view shares this cache entry); filtering is then instant.
  const q = useQuery({
    queryKey: qk.characters(''),
    queryFn: ({ signal }) => api<{ characters: AppCharacter[] }>('/characters?q=', { signal }),
    staleTime: 5 * 60_000,
  });
  const shown = useMemo(() => filterCharacters(q.data?.characters ?? [], search), [q.data, search]);

  return (
    <div className="flex-1 overflow-y-auto" data-testid="characters-page">
      <div className="mx-auto flex max-w-6xl flex-col gap-6 px-4 py-6 sm:px-6 sm:py-8">
        <header className="flex flex-col gap-4 sm:flex-row sm:items-end sm:justify-between">
          <div>
            <h1 className="text-2xl font-semibold tracking-tight">Characters</h1>
            <p className="mt-1 text-sm text-muted-foreground">Personas with their own voice and instructions. Pick one to start a chat.</p>
          </div>
          <div role="search" aria-label="Characters" className="relative sm:w-72">
            <label htmlFor="characters-search" className="sr-only">
              Search characters
            </label>
            <SearchIcon className="pointer-events-none absolute left-3 top-1/2 size-4 -translate-y-1/2 text-muted-foreground" />
            <input
              id="characters-search"
              type="search"
              placeholder="Search by name, description or tag"
              value={search}
              onChange={(e) => setSearch(e.target.value)}
              data-testid="characters-search"
              className={`${inputClasses} pl-9`}
            />
          </div>
        </header>
        {q.isPending ? (
          <div className="flex justify-center py-10 text-muted-foreground">
            <Spinner label="Loading characters" className="size-6" />
          </div>
        ) : q.isError ? (
          <Alert
            title="Could not load the characters"
            action={
              <Button size="sm" variant="secondary" onClick={() => void q.refetch()}>
                Retry
              </Button>
            }
          >
            {q.error.message}
          </Alert>
        ) : (
          <>
            <p role="status" className="sr-only">
              {search ? `${shown.length} of ${q.data.characters.length} characters match` : ''}
            </p>
            {shown.length ? (
              <ul className="grid grid-cols-[repeat(auto-fill,minmax(min(100%,17rem),1fr))] gap-4">
                {shown.map((c) => (
                  <CharacterCard key={c.slug} character={c} onTag={setSearch} />
                ))}
              </ul>
            ) : (
              <p className="py-10 text-center text-sm text-muted-foreground">
                {q.data.characters.length ? `No characters match “${search.trim()}”.` : 'No characters are available on this server yet.'}
              </p>
            )}
          </>
        )}
      </div>
    </div>
  );
}
