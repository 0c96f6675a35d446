'use client';
// Sets a new password from a mailed link (/reset-password#token=…: the token stays out of server logs and Referers).
// On success every session of the account has ended, and the user signs in with the new password.
// data-testid: reset-form, reset-password, reset-submit, reset-done, reset-error.
import { useTranslations } from 'use-intl';
import { useMutation } from '@tanstack/react-query';
import Link from 'next/link';
import { useEffect, useState, type FormEvent } from 'react';
import { call } from '@/components/api/client.ts';
import { Alert } from '@/components/ui/alert.tsx';
import { Button, buttonClasses } from '@/components/ui/button.tsx';
import { PASSWORD_MIN } from '@/components/auth/auth-errors.ts';
import { PasswordField } from '@/components/auth/password-field.tsx';

export function ResetPasswordForm() {
  const t = useTranslations('authPages');
  const te = useTranslations('authErrors');
  const [token, setToken] = useState<string | null>(null);
  const [password, setPassword] = useState('');
  const [fieldError, setFieldError] = useState<string>();
  const reset = useMutation({ mutationFn: (body: { token: string; password: string }) => call('POST /auth/password-reset/confirm', { body }) });

  useEffect(() => {
    setToken(new URLSearchParams(window.location.hash.slice(1)).get('token') ?? '');
  }, []);

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    if ([...password].length < PASSWORD_MIN) return setFieldError(te('atLeast', { min: PASSWORD_MIN }));
    setFieldError(undefined);
    reset.mutate({ token: token ?? '', password });
  };

  if (reset.isSuccess)
    return (
      <div className="flex flex-col gap-4" data-testid="reset-done">
        <h1 className="text-xl font-semibold">{t('passwordChanged')}</h1>
        <p className="text-sm text-muted-foreground">{t('passwordChangedBody')}</p>
        <Link href="/sign-in" className={buttonClasses(undefined, 'lg', 'w-full')} data-testid="reset-sign-in">
          {t('signIn')}
        </Link>
      </div>
    );

  const serverError = reset.error as (Error & { body?: { param?: unknown } }) | null;
  const passwordError = fieldError ?? (serverError?.body?.param === 'password' ? serverError.message : undefined);
  const missing = token === '';
  return (
    <form onSubmit={onSubmit} noValidate className="flex flex-col gap-4" data-testid="reset-form">
      <h1 className="text-xl font-semibold">{t('chooseNew')}</h1>
      {(missing || (serverError && !passwordError)) && (
        <Alert data-testid="reset-error">
          {missing ? t('needsLink') : serverError?.message}{' '}
          <Link href="/forgot-password" className="font-medium underline underline-offset-4">
            {t('newLink')}
          </Link>
        </Alert>
      )}
      <PasswordField
        id="reset-password"
        data-testid="reset-password"
        label={t('newPassword')}
        autoComplete="new-password"
        required
        value={password}
        onChange={(e) => setPassword(e.target.value)}
        error={passwordError}
        hint={t('atLeastHint', { min: PASSWORD_MIN })}
      />
      <Button type="submit" size="lg" className="w-full" pending={reset.isPending} disabled={missing || token === null} data-testid="reset-submit">
        {t('setNew')}
      </Button>
    </form>
  );
}
