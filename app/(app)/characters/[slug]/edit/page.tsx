// Edit one of the user's characters.
import { titleMetadata } from '@/components/i18n/server.ts';
import { EditCharacterPage } from '@/components/characters/editor-page.tsx';
import { decodeSlug } from '@/components/characters/slug.ts';

export const generateMetadata = titleMetadata('editCharacter');

export default async function Page({ params }: { params: Promise<{ slug: string }> }) {
  const { slug } = await params;
  return <EditCharacterPage key={slug} slug={decodeSlug(slug)} />;
}
