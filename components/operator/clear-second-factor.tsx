'use client';
// The operator clears an app user's second factors (a lost phone or passkey): their two-step code with its recovery
// codes, and every passkey, after a confirmation. The password stays; the server records it in the audit log.
// data-testid: clear-second-factor, clear-second-factor-result, clear-second-factor-error (and the confirm dialog's).
import { useTranslations } from 'use-intl';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { call } from '@/components/api/client.ts';
import { Alert } from '@/components/ui/alert.tsx';
import { Button } from '@/components/ui/button.tsx';
import { ConfirmDialog } from '@/components/ui/confirm-dialog.tsx';
import type { OperatorAccount } from '@/lib/wire.ts';

export function ClearSecondFactor({ account }: { account: OperatorAccount }) {
  const t = useTranslations('manageAccount');
  const qc = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const clear = useMutation({
    mutationFn: () => call('POST /operator/accounts/:id/clear-second-factor', { params: { id: account.id } }),
    onSuccess: () => void qc.invalidateQueries({ queryKey: ['operator', 'audit'] }),
    onSettled: () => setConfirming(false),
  });
  if (!account.email || account.operator) return null;
  const r = clear.data;
  return (
    <div className="flex flex-col gap-2 border-t border-border pt-4">
      <h3 className="text-sm font-medium">{t('secondFactor')}</h3>
      {r ? (
        <Alert tone="success" data-testid="clear-second-factor-result">
          {r.totp && r.passkeys
            ? t('clearedBoth', { email: r.email, passkeys: r.passkeys })
            : r.totp
              ? t('clearedTotp', { email: r.email })
              : r.passkeys
                ? t('clearedPasskeys', { email: r.email, passkeys: r.passkeys })
                : t('nothingToClear', { email: r.email })}
        </Alert>
      ) : (
        <Button variant="secondary" size="sm" className="self-start" onClick={() => setConfirming(true)} data-testid="clear-second-factor">
          {t('clearButton')}
        </Button>
      )}
      {clear.isError && <Alert data-testid="clear-second-factor-error">{clear.error.message}</Alert>}
      <ConfirmDialog
        open={confirming}
        title={t('clearTitle')}
        message={t('clearBody', { email: account.email })}
        confirmLabel={t('clear')}
        pending={clear.isPending}
        onCancel={() => setConfirming(false)}
        onConfirm={() => clear.mutate()}
      />
    </div>
  );
}
