import { titleMetadata } from '@/components/i18n/server.ts';
import { CharactersPage } from '@/components/characters/characters-page.tsx';

export const generateMetadata = titleMetadata('characters');

// ?q=, ?tag=, ?sort= and ?scope= pick where browsing starts (a character page's tags link here).
export default async function Page({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const p = await searchParams;
  const one = (k: string) => (typeof p[k] === 'string' ? (p[k] as string) : undefined);
  const sort = one('sort');
  return (
    <CharactersPage
      start={{
        q: one('q'),
        tag: one('tag'),
        sort: sort === 'new' || sort === 'top' || sort === 'popular' ? sort : undefined,
        scope: one('scope') === 'mine' ? 'mine' : undefined,
      }}
    />
  );
}
