import { TeamsPage } from '@/components/teams/teams-page.tsx';
import { titleMetadata } from '@/components/i18n/server.ts';

export const generateMetadata = titleMetadata('teams');

export default function Page() {
  return <TeamsPage />;
}
