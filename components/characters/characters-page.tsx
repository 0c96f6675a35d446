'use client';
// Browse the characters (/characters): search, tags, sort by popular / new / top-rated, everyone's or only mine,
// pages of 24; make a new one or import a card. The server does the filtering (the list can be large).
// data-testid: characters-page, characters-search, characters-sort, characters-scope-*, active-tag, new-character,
// characters-pager (plus character-card.tsx's and import-card.tsx's).
import { useTranslations } from 'use-intl';
import Link from 'next/link';
import { useState } from 'react';
import { inputClasses } from '@/components/auth/text-field.tsx';
import { Pager } from '@/components/billing/pager.tsx';
import { buttonClasses } from '@/components/ui/button.tsx';
import { PlusIcon, SearchIcon, XIcon } from '@/components/ui/icons.tsx';
import { SelectField } from '@/components/ui/fields.tsx';
import { EmptyState, QueryContent } from '@/components/ui/query-state.tsx';
import { cn } from '@/components/ui/cn.ts';
import { useDebouncedValue } from '@/components/ui/use-debounced-value.ts';
import { CharacterCard } from '@/components/characters/character-card.tsx';
import { ImportCard } from '@/components/characters/import-card.tsx';
import { PAGE_SIZE, type BrowseParams, useCharacterList } from '@/components/characters/queries.ts';
import type { CharacterSort } from '@/components/characters/types.ts';

const SORTS: { value: CharacterSort; label: 'sortPopular' | 'sortNew' | 'sortTop' }[] = [
  { value: 'popular', label: 'sortPopular' },
  { value: 'new', label: 'sortNew' },
  { value: 'top', label: 'sortTop' },
];

export interface BrowseStart {
  q?: string;
  tag?: string;
  sort?: CharacterSort;
  scope?: 'all' | 'mine';
}

export function CharactersPage({ start = {} }: { start?: BrowseStart }) {
  const t = useTranslations('characters');
  const [search, setSearch] = useState(start.q ?? '');
  const [tags, setTags] = useState<string[]>(start.tag ? [start.tag] : []);
  const [sort, setSort] = useState<CharacterSort>(start.sort ?? 'popular');
  const [scope, setScope] = useState<'all' | 'mine'>(start.scope ?? 'all');
  const [page, setPage] = useState(1);
  const q = useDebouncedValue(search, 250);
  const params: BrowseParams = { q, tags, sort, scope, page };
  const list = useCharacterList(params);

  // Any change of filter starts again from the first page.
  const refine = (f: () => void) => {
    f();
    setPage(1);
  };
  const addTag = (tag: string) => refine(() => setTags((ts) => (ts.includes(tag) ? ts : [...ts, tag])));

  return (
    <div className="flex-1 overflow-y-auto" data-testid="characters-page">
      <div className="mx-auto flex max-w-6xl flex-col gap-6 px-4 py-6 sm:px-6 sm:py-8">
        <header className="flex flex-col gap-4 sm:flex-row sm:items-start sm:justify-between">
          <div>
            <h1 className="text-2xl font-semibold tracking-tight">{t('title')}</h1>
            <p className="mt-1 text-sm text-muted-foreground">{t('intro')}</p>
          </div>
          <div className="flex flex-wrap items-start gap-2">
            <Link href="/characters/new" className={buttonClasses('primary', 'md')} data-testid="new-character">
              <PlusIcon className="size-4" /> {t('new')}
            </Link>
            <ImportCard />
          </div>
        </header>

        <div className="flex flex-col gap-3">
          <div className="flex flex-col gap-3 sm:flex-row sm:items-end">
            <div role="search" aria-label={t('title')} className="relative flex-1">
              <label htmlFor="characters-search" className="sr-only">
                {t('search')}
              </label>
              <SearchIcon className="pointer-events-none absolute left-3 top-1/2 size-4 -translate-y-1/2 text-muted-foreground" />
              <input
                id="characters-search"
                type="search"
                placeholder={t('searchPlaceholder')}
                value={search}
                onChange={(e) => refine(() => setSearch(e.target.value))}
                data-testid="characters-search"
                className={`${inputClasses} pl-9`}
              />
            </div>
            <SelectField
              id="characters-sort"
              label={t('sortBy')}
              value={sort}
              onChange={(e) => refine(() => setSort(e.target.value as CharacterSort))}
              data-testid="characters-sort"
              className="sm:w-44"
            >
              {SORTS.map((s) => (
                <option key={s.value} value={s.value}>
                  {t(s.label)}
                </option>
              ))}
            </SelectField>
          </div>
          <div className="flex flex-wrap items-center gap-2">
            <div role="group" aria-label={t('whose')} className="inline-flex rounded-lg border border-border p-0.5">
              {(['all', 'mine'] as const).map((s) => (
                <button
                  key={s}
                  type="button"
                  aria-pressed={scope === s}
                  onClick={() => refine(() => setScope(s))}
                  data-testid={`characters-scope-${s}`}
                  className={cn(
                    'rounded-md px-3 py-1 text-sm',
                    scope === s ? 'bg-accent font-medium text-foreground' : 'text-muted-foreground hover:text-foreground',
                  )}
                >
                  {s === 'all' ? t('all') : t('mine')}
                </button>
              ))}
            </div>
            {tags.map((tag) => (
              <button
                key={tag}
                type="button"
                onClick={() => refine(() => setTags((ts) => ts.filter((x) => x !== tag)))}
                data-testid="active-tag"
                className="inline-flex items-center gap-1 rounded-full bg-primary px-2.5 py-1 text-xs font-medium text-primary-foreground hover:bg-primary-hover"
              >
                {tag} <XIcon className="size-3" />
                <span className="sr-only">{t('removeTag')}</span>
              </button>
            ))}
          </div>
        </div>

        <QueryContent query={list} loading={t('loading')} failed={t('failed')}>
          {(data) => (
            <>
              <p role="status" className="sr-only">
                {t('count', { count: data.total })}
              </p>
              {data.characters.length ? (
                <ul className={cn('grid grid-cols-[repeat(auto-fill,minmax(min(100%,17rem),1fr))] gap-4', list.isPlaceholderData && 'opacity-60')}>
                  {data.characters.map((c) => (
                    <CharacterCard key={c.slug} character={c} onTag={addTag} />
                  ))}
                </ul>
              ) : (
                <EmptyState testId="characters-empty">
                  {scope === 'mine' && !q.trim() && !tags.length ? t('noneMine') : q.trim() || tags.length ? t('noMatch') : t('noneHere')}
                </EmptyState>
              )}
              {data.total > PAGE_SIZE && (
                <Pager
                  page={data.page}
                  totalPages={Math.ceil(data.total / PAGE_SIZE)}
                  total={data.total}
                  noun="characters"
                  onPage={setPage}
                  testId="characters-pager"
                />
              )}
            </>
          )}
        </QueryContent>
      </div>
    </div>
  );
}
