'use client';
// "Sign in with a passkey" on the sign-in page: the browser's WebAuthn dialog offers this site's passkeys (no email
// needed), and a verified one starts the session.
// data-testid: passkey-sign-in, passkey-sign-in-error.
import { useTranslations } from 'use-intl';
import { useMutation } from '@tanstack/react-query';
import { startAuthentication } from '@simplewebauthn/browser';
import { call } from '@/components/api/client.ts';
import { Alert } from '@/components/ui/alert.tsx';
import { Button } from '@/components/ui/button.tsx';
import { useSessionStarted } from '@/components/auth/use-auth-submit.ts';

export function PasskeySignIn({ next }: { next: string }) {
  const t = useTranslations('authPages');
  const started = useSessionStarted(next);
  const signIn = useMutation({
    mutationFn: async () => {
      const optionsJSON = await call('POST /auth/passkey/options');
      const response = await startAuthentication({ optionsJSON });
      return call('POST /auth/passkey', { body: { response: response as unknown as Record<string, unknown> } });
    },
    onSuccess: started,
  });
  const err = signIn.error;
  return (
    <div className="flex flex-col gap-2">
      <Button
        variant="secondary"
        size="lg"
        className="w-full"
        onClick={() => signIn.mutate()}
        pending={signIn.isPending || signIn.isSuccess}
        data-testid="passkey-sign-in"
      >
        {t('passkey')}
      </Button>
      {err && <Alert data-testid="passkey-sign-in-error">{err.name === 'NotAllowedError' ? t('passkeyCancelled') : err.message}</Alert>}
    </div>
  );
}
