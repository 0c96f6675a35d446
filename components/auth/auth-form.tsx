'use client';
// Sign-in and sign-up form. Field errors appear under their field (from the browser's checks or the server's 400);
// wrong credentials get one generic message; a 429 disables the button until its retry time has passed.
// data-testid: auth-form, auth-submit, auth-error, email-error / password-error / displayName-error (TextField).
import { useTranslations } from 'use-intl';
import Link from 'next/link';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { Alert } from '@/components/ui/alert.tsx';
import { Button } from '@/components/ui/button.tsx';
import { formatWait, useCountdown } from '@/components/ui/use-countdown.ts';
import { describeAuthError, PASSWORD_MIN, validateAuth, type AuthErrorView } from '@/components/auth/auth-errors.ts';
import { PasswordField } from '@/components/auth/password-field.tsx';
import { TextField } from '@/components/auth/text-field.tsx';
import { useAuthSubmit } from '@/components/auth/use-auth-submit.ts';
import { SecondFactorForm } from '@/components/auth/second-factor-form.tsx';
import { PasskeySignIn } from '@/components/auth/passkey-sign-in.tsx';
import { SsoSignIn } from '@/components/auth/sso-sign-in.tsx';
import { useRedirectIfSignedIn } from '@/components/auth/use-redirect-if-signed-in.ts';
import { WalletEntry } from '@/components/wallet/wallet-entry.tsx';

export function AuthForm({ mode, next, setupToken, ssoError }: { mode: 'sign-in' | 'sign-up'; next: string; setupToken?: string; ssoError?: string }) {
  const t = useTranslations('auth');
  const te = useTranslations('authErrors');
  const signUp = mode === 'sign-up';
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [displayName, setDisplayName] = useState('');
  const [errors, setErrors] = useState<AuthErrorView>({ fields: {} });
  const [attempt, setAttempt] = useState(0);
  const formRef = useRef<HTMLFormElement>(null);
  const [challenge, setChallenge] = useState<string | null>(null);
  const submit = useAuthSubmit(mode, next, setChallenge);
  const wait = useCountdown(errors.retryAt ?? null);
  useRedirectIfSignedIn(next);

  // After a failed attempt, focus the first field in error so keyboard and screen-reader users land on it.
  useEffect(() => {
    if (attempt) formRef.current?.querySelector<HTMLInputElement>('[aria-invalid="true"]')?.focus();
  }, [attempt]);

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    const input = signUp
      ? { email: email.trim(), password, displayName: displayName.trim() || undefined, ...(setupToken ? { setupToken } : {}) }
      : { email: email.trim(), password };
    const fields = validateAuth(input, mode, te);
    if (Object.keys(fields).length) {
      setErrors({ fields });
      setAttempt((n) => n + 1);
      return;
    }
    setErrors({ fields: {} });
    submit.mutate(input, {
      onError: (err) => {
        setErrors(describeAuthError(err, mode, te));
        setAttempt((n) => n + 1);
      },
    });
  };

  const remaining = PASSWORD_MIN - [...password].length;
  const otherHref = `${signUp ? '/sign-in' : '/sign-up'}${next !== '/' ? `?next=${encodeURIComponent(next)}` : ''}`;
  const blocked = wait > 0;

  if (challenge)
    return (
      <SecondFactorForm
        challenge={challenge}
        next={next}
        onRestart={() => {
          setChallenge(null);
          submit.reset();
        }}
      />
    );

  return (
    <form ref={formRef} onSubmit={onSubmit} noValidate className="flex flex-col gap-4" data-testid="auth-form">
      <h1 className="text-xl font-semibold">{signUp ? t('signUpTitle') : t('signInTitle')}</h1>
      {signUp && setupToken && (
        <p className="-mt-2 text-sm text-muted-foreground" data-testid="operator-setup-note">
          {t('operatorSetup')}
        </p>
      )}
      {errors.form && (
        <Alert className="-mt-1" data-testid="auth-error">
          {errors.form}
          {errors.retryAt && ` ${blocked ? t('tryAgainIn', { wait: formatWait(wait) }) : t('tryAgainNow')}`}
        </Alert>
      )}
      {signUp && (
        <TextField
          id="displayName"
          label={t('displayName')}
          autoComplete="nickname"
          maxLength={120}
          value={displayName}
          onChange={(e) => setDisplayName(e.target.value)}
          error={errors.fields.displayName}
        />
      )}
      <TextField
        id="email"
        label={t('email')}
        type="email"
        autoComplete={signUp ? 'email' : 'username'}
        inputMode="email"
        autoCapitalize="none"
        spellCheck={false}
        required
        value={email}
        onChange={(e) => setEmail(e.target.value)}
        error={errors.fields.email}
      />
      <PasswordField
        id="password"
        label={t('password')}
        autoComplete={signUp ? 'new-password' : 'current-password'}
        required
        value={password}
        onChange={(e) => setPassword(e.target.value)}
        error={errors.fields.password}
        // One message at a time: an error about the password replaces the length hint rather than repeating it.
        hint={
          signUp && !errors.fields.password
            ? remaining > 0 && password
              ? t('passwordMinMore', { min: PASSWORD_MIN, remaining })
              : t('passwordMin', { min: PASSWORD_MIN })
            : undefined
        }
      />
      {!signUp && (
        <p className="-mt-2 text-right text-sm">
          <Link href="/forgot-password" className="text-primary underline-offset-4 hover:underline" data-testid="forgot-link">
            {t('forgot')}
          </Link>
        </p>
      )}
      <Button type="submit" size="lg" className="mt-1 w-full" pending={submit.isPending || submit.isSuccess} disabled={blocked} data-testid="auth-submit">
        {signUp ? t('signUpSubmit') : t('signInSubmit')}
      </Button>
      {!signUp && <SsoSignIn next={next} error={ssoError} />}
      {!signUp && <PasskeySignIn next={next} />}
      {!signUp && <WalletEntry next={next} />}
      <p className="text-center text-sm text-muted-foreground">
        {signUp ? t('haveAccount') : t('newToLagoon')}{' '}
        <Link href={otherHref} className="font-medium text-primary underline-offset-4 hover:underline">
          {signUp ? t('signInSubmit') : t('createAccount')}
        </Link>
      </p>
    </form>
  );
}
