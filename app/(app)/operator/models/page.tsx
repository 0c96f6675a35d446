import { titleMetadata } from '@/components/i18n/server.ts';
import { OperatorModelsPage } from '@/components/operator/models-page.tsx';

export const generateMetadata = titleMetadata('operatorModels');

export default function Page() {
  return <OperatorModelsPage />;
}
