import type { Metadata } from 'next';
import { KnowledgePage } from '@/components/knowledge/knowledge-page.tsx';

export const metadata: Metadata = { title: 'Knowledge' };

export default function Page() {
  return <KnowledgePage />;
}
