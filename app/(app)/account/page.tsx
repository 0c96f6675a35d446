import { titleMetadata } from '@/components/i18n/server.ts';
import { AccountPage } from '@/components/account/account-page.tsx';

export const generateMetadata = titleMetadata('account');

export default function Page() {
  return <AccountPage />;
}
