import { titleMetadata } from '@/components/i18n/server.ts';
import { OperatorToolsPage } from '@/components/operator/mcp-page.tsx';

export const generateMetadata = titleMetadata('operatorTools');

export default function Page() {
  return <OperatorToolsPage />;
}
