import type { Metadata } from 'next';
import { OperatorToolsPage } from '@/components/operator/mcp-page.tsx';

export const metadata: Metadata = { title: 'Tools · Operator' };

export default function Page() {
  return <OperatorToolsPage />;
}
