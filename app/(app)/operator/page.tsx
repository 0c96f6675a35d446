import type { Metadata } from 'next';
import { OperatorPage } from '@/components/operator/operator-page.tsx';

export const metadata: Metadata = { title: 'Operator' };

export default function Page() {
  return <OperatorPage />;
}
