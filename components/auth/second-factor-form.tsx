'use client';
// The sign-in's second step: the code from the user's authenticator app (or one of their recovery codes) redeems the
// challenge the password step returned. An expired challenge sends the user back to the password.
// data-testid: second-factor-form, second-factor-code, second-factor-submit, second-factor-error.
import { useTranslations } from 'use-intl';
import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { AppApiError, call } from '@/components/api/client.ts';
import { Alert } from '@/components/ui/alert.tsx';
import { Button } from '@/components/ui/button.tsx';
import { TextField } from '@/components/auth/text-field.tsx';
import { useSessionStarted } from '@/components/auth/use-auth-submit.ts';

export function SecondFactorForm({ challenge, next, onRestart }: { challenge: string; next: string; onRestart: () => void }) {
  const t = useTranslations('authPages');
  const [code, setCode] = useState('');
  const started = useSessionStarted(next);
  const redeem = useMutation({
    mutationFn: (c: string) => call('POST /auth/sign-in/second-factor', { body: { challenge, code: c } }),
    onSuccess: started,
  });
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    if (code.trim()) redeem.mutate(code.trim());
  };
  const err = redeem.error;
  const expired = err instanceof AppApiError && err.status === 401;
  return (
    <form onSubmit={onSubmit} noValidate className="flex flex-col gap-4" data-testid="second-factor-form">
      <h1 className="text-xl font-semibold">{t('twoStep')}</h1>
      <p className="-mt-2 text-sm text-muted-foreground">{t('twoStepIntro')}</p>
      {err && !expired && err instanceof AppApiError && err.status !== 400 && <Alert data-testid="second-factor-error">{err.message}</Alert>}
      {expired && (
        <Alert data-testid="second-factor-error">
          {err.message}{' '}
          <button type="button" className="font-medium underline underline-offset-4" onClick={onRestart}>
            {t('startAgain')}
          </button>
        </Alert>
      )}
      <TextField
        id="second-factor-code"
        data-testid="second-factor-code"
        label={t('code')}
        autoComplete="one-time-code"
        inputMode="text"
        autoCapitalize="none"
        spellCheck={false}
        autoFocus
        value={code}
        onChange={(e) => setCode(e.target.value)}
        error={err instanceof AppApiError && err.status === 400 ? err.message : undefined}
      />
      <Button type="submit" size="lg" className="w-full" pending={redeem.isPending || redeem.isSuccess} data-testid="second-factor-submit">
        {t('verify')}
      </Button>
    </form>
  );
}
