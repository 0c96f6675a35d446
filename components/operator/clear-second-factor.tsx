'use client';
// The operator clears an app user's second factors (a lost phone or passkey): their two-step code with its recovery
// codes, and every passkey, after a confirmation. The password stays; the server records it in the audit log.
// data-testid: clear-second-factor, clear-second-factor-result, clear-second-factor-error (and the confirm dialog's).
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { call } from '@/components/api/client.ts';
import { Alert } from '@/components/ui/alert.tsx';
import { Button } from '@/components/ui/button.tsx';
import { ConfirmDialog } from '@/components/ui/confirm-dialog.tsx';
import type { OperatorAccount } from '@/lib/wire.ts';

export function ClearSecondFactor({ account }: { account: OperatorAccount }) {
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
      <h3 className="text-sm font-medium">Second factor</h3>
      {r ? (
        <Alert tone="success" data-testid="clear-second-factor-result">
          {r.totp || r.passkeys
            ? `Cleared for ${r.email}: ${[r.totp && 'the two-step code', r.passkeys && `${r.passkeys} passkey${r.passkeys === 1 ? '' : 's'}`].filter(Boolean).join(' and ')}. They sign in with their password and can enrol again in Settings.`
            : `${r.email} had no two-step code or passkey: nothing to clear.`}
        </Alert>
      ) : (
        <Button variant="secondary" size="sm" className="self-start" onClick={() => setConfirming(true)} data-testid="clear-second-factor">
          Clear two-step sign-in and passkeys
        </Button>
      )}
      {clear.isError && <Alert data-testid="clear-second-factor-error">{clear.error.message}</Alert>}
      <ConfirmDialog
        open={confirming}
        title="Clear this user's second factor?"
        message={`${account.email}'s two-step code, recovery codes and passkeys are removed, so their password alone signs them in until they enrol again. Do this only once you are sure the request comes from them.`}
        confirmLabel="Clear"
        pending={clear.isPending}
        onCancel={() => setConfirming(false)}
        onConfirm={() => clear.mutate()}
      />
    </div>
  );
}
