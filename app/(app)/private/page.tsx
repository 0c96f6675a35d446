import { titleMetadata } from '@/components/i18n/server.ts';
import { PrivatePage } from '@/components/private/private-page.tsx';

export const generateMetadata = titleMetadata('private');

export default function Page() {
  return <PrivatePage />;
}
