'use client';
// Renders the signed-in app only for a signed-in user: signed-out visitors (or an expired session) go to /sign-in
// and come back to the page they asked for; a server or network failure offers a retry instead of a blank page.
import { useTranslations } from 'use-intl';
import { useRouter } from 'next/navigation';
import { useEffect, type ReactNode } from 'react';
import { Alert } from '@/components/ui/alert.tsx';
import { Button } from '@/components/ui/button.tsx';
import { Spinner } from '@/components/ui/spinner.tsx';
import { isSignedOut, useMe } from '@/components/session/use-me.ts';
import { signInUrl } from '@/components/session/safe-next.ts';

export function SessionGate({ children }: { children: ReactNode }) {
  const t = useTranslations('session');
  const tc = useTranslations('common');
  const me = useMe();
  const router = useRouter();
  const signedOut = isSignedOut(me.error);

  useEffect(() => {
    if (!signedOut) return;
    router.replace(signInUrl(window.location.pathname + window.location.search));
  }, [signedOut, router]);

  if (me.data && !signedOut) return children;
  if (me.error && !signedOut) {
    return (
      <main className="grid min-h-dvh place-items-center p-6">
        <Alert
          title={t('failed')}
          className="max-w-md"
          action={
            <Button size="sm" variant="secondary" onClick={() => void me.refetch()} pending={me.isFetching}>
              {tc('retry')}
            </Button>
          }
        >
          {me.error.message}
        </Alert>
      </main>
    );
  }
  return (
    <main className="grid min-h-dvh place-items-center text-muted-foreground">
      <Spinner className="size-6" label={signedOut ? t('redirecting') : tc('loading')} />
    </main>
  );
}
