import { JoinTeamPage } from '@/components/teams/join-page.tsx';
import { titleMetadata } from '@/components/i18n/server.ts';

export const generateMetadata = titleMetadata('joinTeam');

export default function Page() {
  return <JoinTeamPage />;
}
