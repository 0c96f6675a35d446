import { titleMetadata } from '@/components/i18n/server.ts';
import { UsagePage } from '@/components/usage/usage-page.tsx';

export const generateMetadata = titleMetadata('usage');

export default function Page() {
  return <UsagePage />;
}
