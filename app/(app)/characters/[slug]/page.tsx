// One character: details, reviews, Start chat. Keyed by slug so moving between characters starts the page afresh.
import type { Metadata } from 'next';
import { CharacterPage } from '@/components/characters/character-page.tsx';
import { decodeSlug } from '@/components/characters/slug.ts';

export const metadata: Metadata = { title: 'Character' };

export default async function Page({ params }: { params: Promise<{ slug: string }> }) {
  const { slug } = await params;
  return <CharacterPage key={slug} slug={decodeSlug(slug)} />;
}
