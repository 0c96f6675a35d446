import { titleMetadata } from '@/components/i18n/server.ts';
import { OperatorPage } from '@/components/operator/operator-page.tsx';

export const generateMetadata = titleMetadata('operator');

export default function Page() {
  return <OperatorPage />;
}
