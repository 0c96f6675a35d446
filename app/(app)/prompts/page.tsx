import { titleMetadata } from '@/components/i18n/server.ts';
import { PromptsPage } from '@/components/prompts/prompts-page.tsx';

export const generateMetadata = titleMetadata('prompts');

export default function Page() {
  return <PromptsPage />;
}
