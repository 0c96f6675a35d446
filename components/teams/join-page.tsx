'use client';
// Accepting a team invitation: the link's token rides in the fragment (never sent to a server log); the signed-in
// user accepts, and the session then acts for the team.
// data-testid: join-page, accept-invite, join-error.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import { useEffect, useState } from 'react';
import { useTranslations } from 'use-intl';
import { call } from '@/components/api/client.ts';
import { Alert } from '@/components/ui/alert.tsx';
import { Button } from '@/components/ui/button.tsx';

export function JoinTeamPage() {
  const t = useTranslations('teams');
  const router = useRouter();
  const qc = useQueryClient();
  const [token, setToken] = useState('');
  useEffect(() => setToken(new URLSearchParams(window.location.hash.slice(1)).get('token') ?? ''), []);
  const accept = useMutation({
    mutationFn: () => call('POST /teams/invites/accept', { body: { token } }),
    onSuccess: () => {
      void qc.resetQueries();
      router.push('/teams');
    },
  });
  return (
    <main className="mx-auto flex w-full max-w-xl flex-col gap-4 p-4" data-testid="join-page">
      <h1 className="text-2xl font-semibold">{t('joinTitle')}</h1>
      <p className="text-sm text-muted-foreground">{t('joinText')}</p>
      <Button onClick={() => accept.mutate()} pending={accept.isPending} disabled={!token} data-testid="accept-invite">
        {t('accept')}
      </Button>
      {accept.isError && (
        <Alert tone="error" data-testid="join-error">
          {accept.error.message}
        </Alert>
      )}
    </main>
  );
}
