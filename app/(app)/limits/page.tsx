import type { Metadata } from 'next';
import { LimitsPage } from '@/components/limits/limits-page.tsx';

export const metadata: Metadata = { title: 'Rate limits' };

export default function Page() {
  return <LimitsPage />;
}
