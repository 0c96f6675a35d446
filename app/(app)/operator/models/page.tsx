import type { Metadata } from 'next';
import { OperatorModelsPage } from '@/components/operator/models-page.tsx';

export const metadata: Metadata = { title: 'Models · Operator' };

export default function Page() {
  return <OperatorModelsPage />;
}
