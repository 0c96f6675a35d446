import { titleMetadata } from '@/components/i18n/server.ts';
import { KeysPage } from '@/components/keys/keys-page.tsx';

export const generateMetadata = titleMetadata('keys');

export default function Page() {
  return <KeysPage />;
}
