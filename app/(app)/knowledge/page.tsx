import { titleMetadata } from '@/components/i18n/server.ts';
import { KnowledgePage } from '@/components/knowledge/knowledge-page.tsx';

export const generateMetadata = titleMetadata('knowledge');

export default function Page() {
  return <KnowledgePage />;
}
