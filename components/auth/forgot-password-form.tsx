'use client';
// Asks for a password-reset mail. The answer is the same whether the address has an account or not; when the server
// has no mail (LAGOON_SMTP_URL unset) the page says so and points to the operator instead.
// data-testid: forgot-form, forgot-email, forgot-submit, forgot-sent, forgot-off, forgot-error.
import { useTranslations } from 'use-intl';
import { useMutation, useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useState, type FormEvent } from 'react';
import { call } from '@/components/api/client.ts';
import { Alert } from '@/components/ui/alert.tsx';
import { Button } from '@/components/ui/button.tsx';
import { TextField } from '@/components/auth/text-field.tsx';

export function ForgotPasswordForm() {
  const t = useTranslations('authPages');
  const te = useTranslations('authErrors');
  const info = useQuery({ queryKey: ['auth', 'recovery'], queryFn: () => call('GET /auth/recovery') });
  const [email, setEmail] = useState('');
  const [fieldError, setFieldError] = useState<string>();
  const send = useMutation({ mutationFn: (address: string) => call('POST /auth/password-reset', { body: { email: address } }) });

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    const address = email.trim();
    if (!address) return setFieldError(te('emailMissing'));
    setFieldError(undefined);
    send.mutate(address);
  };

  const back = (
    <p className="text-center text-sm text-muted-foreground">
      <Link href="/sign-in" className="font-medium text-primary underline-offset-4 hover:underline">
        {t('backToSignIn')}
      </Link>
    </p>
  );

  if (info.data && !info.data.mail)
    return (
      <div className="flex flex-col gap-4" data-testid="forgot-off">
        <h1 className="text-xl font-semibold">{t('resetTitle')}</h1>
        <p className="text-sm text-muted-foreground">{t('resetOff')}</p>
        {back}
      </div>
    );

  if (send.isSuccess)
    return (
      <div className="flex flex-col gap-4" data-testid="forgot-sent">
        <h1 className="text-xl font-semibold">{t('checkEmail')}</h1>
        <p className="text-sm text-muted-foreground">{t('resetSent', { email: email.trim() })}</p>
        {back}
      </div>
    );

  const serverError = send.error as (Error & { body?: { param?: unknown } }) | null;
  const emailError = fieldError ?? (serverError?.body?.param === 'email' ? serverError.message : undefined);
  return (
    <form onSubmit={onSubmit} noValidate className="flex flex-col gap-4" data-testid="forgot-form">
      <h1 className="text-xl font-semibold">{t('resetTitle')}</h1>
      <p className="-mt-2 text-sm text-muted-foreground">{t('resetIntro')}</p>
      {serverError && !emailError && <Alert data-testid="forgot-error">{serverError.message}</Alert>}
      <TextField
        id="forgot-email"
        data-testid="forgot-email"
        label={t('email')}
        type="email"
        autoComplete="username"
        inputMode="email"
        autoCapitalize="none"
        spellCheck={false}
        required
        value={email}
        onChange={(e) => setEmail(e.target.value)}
        error={emailError}
      />
      <Button type="submit" size="lg" className="w-full" pending={send.isPending} disabled={info.isPending} data-testid="forgot-submit">
        {t('sendReset')}
      </Button>
      {back}
    </form>
  );
}
