// The characters app API from the browser: reads as TanStack queries. Every key starts with 'characters', so one
// invalidation refreshes the browse page, a character's page and the chat picker alike.
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { AppApiError, call } from '@/components/api/client.ts';
import type { CharacterSort } from './types.ts';

export const PAGE_SIZE = 24;
export const REVIEWS_PAGE_SIZE = 20;

export interface BrowseParams {
  q: string;
  tags: string[];
  sort: CharacterSort;
  scope: 'all' | 'mine';
  page: number;
}

export const charKeys = {
  all: ['characters'] as const,
  list: (p: BrowseParams) => ['characters', 'browse', p] as const,
  one: (slug: string) => ['characters', 'one', slug] as const,
  reviews: (slug: string, page: number) => ['characters', 'reviews', slug, page] as const,
};

export const characterPath = (slug: string, rest = ''): string => `/characters/${encodeURIComponent(slug)}${rest}`;

export function useCharacterList(p: BrowseParams) {
  return useQuery({
    queryKey: charKeys.list(p),
    queryFn: ({ signal }) =>
      call('GET /characters', { query: { q: p.q.trim(), sort: p.sort, scope: p.scope, page: p.page, limit: PAGE_SIZE, tags: p.tags.join(',') }, signal }),
    // The grid keeps the last page while the next one loads, instead of flashing a spinner per keystroke.
    placeholderData: keepPreviousData,
  });
}

export function useCharacter(slug: string) {
  return useQuery({
    queryKey: charKeys.one(slug),
    queryFn: ({ signal }) => call('GET /characters/:slug', { params: { slug }, signal }),
    select: (r) => r.character,
    retry: (n, err) => n < 2 && !(err instanceof AppApiError && err.status === 404),
  });
}

export function useReviews(slug: string, page: number) {
  return useQuery({
    queryKey: charKeys.reviews(slug, page),
    queryFn: ({ signal }) => call('GET /characters/:slug/reviews', { params: { slug }, query: { page, limit: REVIEWS_PAGE_SIZE }, signal }),
    placeholderData: keepPreviousData,
  });
}
