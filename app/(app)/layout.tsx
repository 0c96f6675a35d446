// The signed-in app: the session gate (signed-out visitors go to /sign-in) around the sidebar shell.
import type { ReactNode } from 'react';
import { SessionGate } from '@/components/session/session-gate.tsx';
import { AppShell } from '@/components/shell/app-shell.tsx';

export default function SignedInLayout({ children }: { children: ReactNode }) {
  return (
    <SessionGate>
      <AppShell>{children}</AppShell>
    </SessionGate>
  );
}
