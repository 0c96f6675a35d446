import type { Metadata } from 'next';
import { CharactersPage } from '@/components/characters/characters-page.tsx';

export const metadata: Metadata = { title: 'Characters' };

export default function Page() {
  return <CharactersPage />;
}
