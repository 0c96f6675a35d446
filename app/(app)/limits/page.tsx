import { titleMetadata } from '@/components/i18n/server.ts';
import { LimitsPage } from '@/components/limits/limits-page.tsx';

export const generateMetadata = titleMetadata('limits');

export default function Page() {
  return <LimitsPage />;
}
