// Edit one of the user's characters.
import type { Metadata } from 'next';
import { EditCharacterPage } from '@/components/characters/editor-page.tsx';
import { decodeSlug } from '@/components/characters/slug.ts';

export const metadata: Metadata = { title: 'Edit character' };

export default async function Page({ params }: { params: Promise<{ slug: string }> }) {
  const { slug } = await params;
  return <EditCharacterPage key={slug} slug={decodeSlug(slug)} />;
}
