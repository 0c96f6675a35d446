'use client';
// The operator's password reset for an app user: a temporary password, shown here once (the server keeps only its
// hash) for the operator to hand over; the user's sessions end, and they can change it in Account.
// data-testid: reset-password, reset-password-result, reset-password-error.
import { useTranslations } from 'use-intl';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { call } from '@/components/api/client.ts';
import { Alert } from '@/components/ui/alert.tsx';
import { Button } from '@/components/ui/button.tsx';
import type { OperatorAccount } from '@/lib/wire.ts';

export function ResetPassword({ account }: { account: OperatorAccount }) {
  const t = useTranslations('manageAccount');
  const qc = useQueryClient();
  const reset = useMutation({
    mutationFn: () => call('POST /operator/accounts/:id/reset-password', { params: { id: account.id } }),
    onSuccess: () => void qc.invalidateQueries({ queryKey: ['operator', 'audit'] }),
  });
  if (!account.email || account.operator) return null;
  return (
    <div className="flex flex-col gap-2 border-t border-border pt-4">
      <h3 className="text-sm font-medium">{t('password')}</h3>
      {reset.data ? (
        <Alert tone="success" data-testid="reset-password-result">
          {t('tempFor', { email: reset.data.email })}
          <code className="rounded bg-muted px-1 font-mono select-all">{reset.data.temporaryPassword}</code>
          {t('tempAfter')}
        </Alert>
      ) : (
        <Button variant="secondary" size="sm" className="self-start" pending={reset.isPending} onClick={() => reset.mutate()} data-testid="reset-password">
          {t('resetPassword')}
        </Button>
      )}
      {reset.isError && <Alert data-testid="reset-password-error">{reset.error.message}</Alert>}
    </div>
  );
}
