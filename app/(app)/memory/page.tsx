import { titleMetadata } from '@/components/i18n/server.ts';
import { MemoryPage } from '@/components/memory/memory-page.tsx';

export const generateMetadata = titleMetadata('memory');

export default function Page() {
  return <MemoryPage />;
}
