'use client';
// The account page's email line: verified or not, and (when the server sends mail) a button that mails a link.
// data-testid: email-status, email-verify-send, email-verify-sent, email-verify-error.
import { useTranslations } from 'use-intl';
import { useMutation, useQuery } from '@tanstack/react-query';
import { call } from '@/components/api/client.ts';
import { Alert } from '@/components/ui/alert.tsx';
import { Button } from '@/components/ui/button.tsx';

export function EmailVerification() {
  const t = useTranslations('emailVerification');
  const status = useQuery({ queryKey: ['account', 'email'], queryFn: ({ signal }) => call('GET /account/email', { signal }) });
  const send = useMutation({ mutationFn: () => call('POST /account/email/verify') });
  const s = status.data;
  if (!s?.email) return null;
  return (
    <section className="flex flex-col gap-2 sm:max-w-md">
      <h3 className="font-medium">{t('title')}</h3>
      <p className="text-sm text-muted-foreground" data-testid="email-status" data-verified={s.verified ? 'true' : 'false'}>
        {t('status', { email: s.email, verified: s.verified ? 'yes' : 'no' })}
      </p>
      {!s.verified && s.mail && !send.isSuccess && (
        <div>
          <Button size="sm" variant="secondary" onClick={() => send.mutate()} pending={send.isPending} data-testid="email-verify-send">
            {t('send')}
          </Button>
        </div>
      )}
      {send.isSuccess && (
        <p role="status" className="text-sm text-success" data-testid="email-verify-sent">
          {t('sent', { email: s.email })}
        </p>
      )}
      {send.isError && <Alert data-testid="email-verify-error">{send.error.message}</Alert>}
    </section>
  );
}
