import { titleMetadata } from '@/components/i18n/server.ts';
import { BillingPage } from '@/components/billing/billing-page.tsx';

export const generateMetadata = titleMetadata('billing');

export default function Page() {
  return <BillingPage />;
}
