'use client';
// Opens a mailed verification link (/verify-email#token=…) and says whether it proved the address.
// data-testid: verify-email, verify-done, verify-error.
import { useTranslations } from 'use-intl';
import { useMutation } from '@tanstack/react-query';
import Link from 'next/link';
import { useEffect } from 'react';
import { call } from '@/components/api/client.ts';
import { Alert } from '@/components/ui/alert.tsx';
import { Spinner } from '@/components/ui/spinner.tsx';

export function VerifyEmail() {
  const t = useTranslations('authPages');
  const verify = useMutation({ mutationFn: (token: string) => call('POST /auth/verify-email', { body: { token } }) });
  const { mutate } = verify;
  useEffect(() => {
    mutate(new URLSearchParams(window.location.hash.slice(1)).get('token') ?? '');
  }, [mutate]);
  return (
    <div className="flex flex-col gap-4" data-testid="verify-email">
      <h1 className="text-xl font-semibold">{t('verifyTitle')}</h1>
      {verify.isSuccess ? (
        <p className="text-sm" data-testid="verify-done">
          {t('verified')}
        </p>
      ) : verify.isError ? (
        <Alert data-testid="verify-error">{verify.error.message}</Alert>
      ) : (
        <Spinner label={t('verifying')} className="size-5" />
      )}
      <p className="text-center text-sm">
        <Link href="/account" className="font-medium text-primary underline-offset-4 hover:underline">
          {t('toAccount')}
        </Link>
      </p>
    </div>
  );
}
