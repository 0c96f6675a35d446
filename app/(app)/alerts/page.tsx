import { titleMetadata } from '@/components/i18n/server.ts';
import { AlertsPage } from '@/components/alerts/alerts-page.tsx';

export const generateMetadata = titleMetadata('alerts');

export default function Page() {
  return <AlertsPage />;
}
