// An address that matches no page: said inside the app's own frame (the sidebar stays, so the way back is there),
// styled by classes only, so the Content-Security-Policy has nothing to block (Next's built-in page uses inline
// styles). Next answers it with status 404.
import type { Metadata } from 'next';
import Link from 'next/link';
import { SessionGate } from '@/components/session/session-gate.tsx';
import { AppShell } from '@/components/shell/app-shell.tsx';
import { buttonClasses } from '@/components/ui/button.tsx';

export const metadata: Metadata = { title: 'Page not found' };

export default function NotFound() {
  return (
    <SessionGate>
      <AppShell>
        <div className="grid flex-1 place-items-center p-6" data-testid="not-found-page">
          <div className="max-w-md text-center">
            <h1 className="text-2xl font-semibold">Page not found</h1>
            <p className="mt-2 text-sm text-muted-foreground">There is no page at this address. It may have moved, or the link may be mistyped.</p>
            <Link href="/" className={buttonClasses('primary', 'sm', 'mt-4')}>
              Start a new chat
            </Link>
          </div>
        </div>
      </AppShell>
    </SessionGate>
  );
}
