// One character: details, reviews, Start chat. Keyed by slug so moving between characters starts the page afresh.
import { titleMetadata } from '@/components/i18n/server.ts';
import { CharacterPage } from '@/components/characters/character-page.tsx';
import { decodeSlug } from '@/components/characters/slug.ts';

export const generateMetadata = titleMetadata('character');

export default async function Page({ params }: { params: Promise<{ slug: string }> }) {
  const { slug } = await params;
  return <CharacterPage key={slug} slug={decodeSlug(slug)} />;
}
