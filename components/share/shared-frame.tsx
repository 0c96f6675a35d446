'use client';
// The frame of a shared chat's page: the app's own (sidebar and all) for a signed-in reader, a plain top bar with the
// way to sign in for anyone else (a share link is read signed out).
import { useTranslations } from 'use-intl';
import Link from 'next/link';
import type { ReactNode } from 'react';
import { AppShell } from '@/components/shell/app-shell.tsx';
import { Brand } from '@/components/shell/brand.tsx';
import { useMe } from '@/components/session/use-me.ts';
import { signInUrl } from '@/components/session/safe-next.ts';
import { buttonClasses } from '@/components/ui/button.tsx';

export function SharedFrame({ children, path }: { children: ReactNode; path: string }) {
  const t = useTranslations('sharedChat');
  const me = useMe();
  if (me.data) return <AppShell>{children}</AppShell>;
  return (
    <div className="flex min-h-dvh flex-col">
      <header className="flex h-12 shrink-0 items-center justify-between border-b border-border px-4">
        <Link href="/" aria-label={t('home')}>
          <Brand />
        </Link>
        {me.isError && (
          <Link href={signInUrl(path)} className={buttonClasses('secondary', 'sm')} data-testid="share-signin">
            {t('signIn')}
          </Link>
        )}
      </header>
      <main className="flex min-h-0 flex-1 flex-col">{children}</main>
    </div>
  );
}
