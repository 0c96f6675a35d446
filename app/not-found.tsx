// An address that matches no page: said inside the app's own frame (the sidebar stays, so the way back is there),
// styled by classes only, so the Content-Security-Policy has nothing to block (Next's built-in page uses inline
// styles). Next answers it with status 404.
import { titleMetadata } from '@/components/i18n/server.ts';
import { SessionGate } from '@/components/session/session-gate.tsx';
import { AppShell } from '@/components/shell/app-shell.tsx';
import { NotFoundBody } from '@/components/shell/not-found-body.tsx';

export const generateMetadata = titleMetadata('pageNotFound');

export default function NotFound() {
  return (
    <SessionGate>
      <AppShell>
        <NotFoundBody />
      </AppShell>
    </SessionGate>
  );
}
