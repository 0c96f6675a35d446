// Make a new character (private until published).
import type { Metadata } from 'next';
import { NewCharacterPage } from '@/components/characters/editor-page.tsx';

export const metadata: Metadata = { title: 'New character' };

export default function Page() {
  return <NewCharacterPage />;
}
