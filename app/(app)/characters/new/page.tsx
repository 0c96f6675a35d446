// Make a new character (private until published).
import { titleMetadata } from '@/components/i18n/server.ts';
import { NewCharacterPage } from '@/components/characters/editor-page.tsx';

export const generateMetadata = titleMetadata('newCharacter');

export default function Page() {
  return <NewCharacterPage />;
}
