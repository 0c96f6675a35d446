// Signed-out pages: a centred card on a quiet background, scrollable on small screens.
import type { ReactNode } from 'react';
import { Brand } from '@/components/shell/brand.tsx';

export default function AuthLayout({ children }: { children: ReactNode }) {
  return (
    <main className="flex min-h-dvh flex-col items-center justify-center gap-6 bg-muted/50 px-4 py-10">
      <Brand className="text-xl" />
      <div className="w-full max-w-sm rounded-xl border border-border bg-card p-6 text-card-foreground shadow-sm sm:p-7">{children}</div>
    </main>
  );
}
