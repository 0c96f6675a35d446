'use client';
// Managing one account (a dialog): grant USD credit with a note, set the daily DIEM allowance and the tier, disable
// or enable it (after a confirmation). Every change is audited on the server with the operator's name.
// data-testid: manage-dialog, grant-usd, grant-note, grant-submit, diem-daily, diem-submit, tier-select, tier-submit,
// toggle-disabled, manage-error, manage-done.
import { type FormEvent, useId, useState } from 'react';
import { useGrant, usePatchAccount } from '@/components/operator/queries.ts';
import { ResetPassword } from '@/components/operator/reset-password.tsx';
import { ClearSecondFactor } from '@/components/operator/clear-second-factor.tsx';
import { Alert } from '@/components/ui/alert.tsx';
import { Button } from '@/components/ui/button.tsx';
import { ConfirmDialog } from '@/components/ui/confirm-dialog.tsx';
import { Dialog } from '@/components/ui/dialog.tsx';
import { InputField, SelectField } from '@/components/ui/fields.tsx';
import { formatDiem, formatUsd } from '@/components/usage/format.ts';
import type { OperatorAccount } from '@/lib/wire.ts';

export const ownerOf = (a: OperatorAccount) => a.email ?? (a.wallet ? `Wallet ${a.wallet.split(':').pop()}` : a.name);
const amountError = (v: string, min: number) => {
  const n = Number(v);
  return v.trim() && Number.isFinite(n) && n >= min ? undefined : `Enter an amount${min > 0 ? ' above 0' : ' of 0 or more'}`;
};

export function ManageAccount({ account, onClose }: { account: OperatorAccount; onClose: () => void }) {
  const id = useId();
  const [a, setA] = useState(account);
  const [usd, setUsd] = useState('');
  const [note, setNote] = useState('');
  const [diem, setDiem] = useState(String(account.balances.diemDaily));
  const [tier, setTier] = useState(account.tier);
  const [confirming, setConfirming] = useState(false);
  const [done, setDone] = useState<string | null>(null);
  const [touched, setTouched] = useState(false);
  const grant = useGrant();
  const patch = usePatchAccount();
  const error = grant.error ?? patch.error;

  const onGrant = (e: FormEvent) => {
    e.preventDefault();
    setTouched(true);
    if (amountError(usd, 0.000001)) return;
    grant.mutate(
      { id: a.id, body: { usd: Number(usd), ...(note.trim() ? { note: note.trim() } : {}) } },
      {
        onSuccess: (r) => {
          setA(r.account);
          setDone(`Granted ${formatUsd(Number(usd))}. The balance is now ${formatUsd(r.account.balances.usd)}.`);
          setUsd('');
          setNote('');
          setTouched(false);
        },
      },
    );
  };
  const change = (body: Parameters<typeof patch.mutate>[0]['body'], message: string) =>
    patch.mutate(
      { id: a.id, body },
      {
        onSuccess: (r) => {
          setA(r.account);
          setDone(message);
          setConfirming(false);
        },
      },
    );

  return (
    <Dialog open onClose={onClose} title={`Manage ${ownerOf(a)}`} testId="manage-dialog" className="w-[min(36rem,calc(100vw-2rem))]">
      <p className="text-sm text-muted-foreground">
        {formatUsd(a.balances.usd)} USD · {formatDiem(a.balances.diem)} of {formatDiem(a.balances.diemDaily)} DIEM today · {a.tier} tier
        {a.disabledAt !== null && ' · disabled'}
      </p>
      {done && (
        <Alert tone="success" data-testid="manage-done">
          {done}
        </Alert>
      )}
      {error && <Alert data-testid="manage-error">{error.message}</Alert>}
      <form onSubmit={onGrant} noValidate className="flex flex-col gap-3 rounded-lg border border-border p-3">
        <h3 className="font-medium">Grant USD credit</h3>
        <div className="grid grid-cols-1 gap-3 sm:grid-cols-2">
          <InputField
            id={`${id}-usd`}
            label="Amount (USD)"
            inputMode="decimal"
            value={usd}
            onChange={(e) => setUsd(e.target.value)}
            error={touched ? amountError(usd, 0.000001) : undefined}
            data-testid="grant-usd"
            autoComplete="off"
          />
          <InputField
            id={`${id}-note`}
            label="Note (optional)"
            maxLength={200}
            value={note}
            onChange={(e) => setNote(e.target.value)}
            hint="Shown on the account’s statement."
            data-testid="grant-note"
            autoComplete="off"
          />
        </div>
        <Button type="submit" size="sm" className="self-start" pending={grant.isPending} data-testid="grant-submit">
          Grant credit
        </Button>
      </form>
      <div className="grid grid-cols-1 gap-3 rounded-lg border border-border p-3 sm:grid-cols-2">
        <form
          className="flex flex-col gap-2"
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            if (!amountError(diem, 0)) change({ diemDaily: Number(diem) }, `The daily DIEM allowance is now ${formatDiem(Number(diem))}.`);
          }}
        >
          <InputField
            id={`${id}-diem`}
            label="Daily DIEM allowance"
            inputMode="decimal"
            value={diem}
            onChange={(e) => setDiem(e.target.value)}
            error={amountError(diem, 0)}
            data-testid="diem-daily"
            autoComplete="off"
          />
          <Button type="submit" size="sm" variant="secondary" className="self-start" pending={patch.isPending} data-testid="diem-submit">
            Set allowance
          </Button>
        </form>
        <form
          className="flex flex-col gap-2"
          onSubmit={(e) => {
            e.preventDefault();
            change({ tier }, `The tier is now ${tier}.`);
          }}
        >
          <SelectField
            id={`${id}-tier`}
            label="Rate-limit tier"
            value={tier}
            onChange={(e) => setTier(e.target.value as typeof tier)}
            data-testid="tier-select"
          >
            <option value="default">Standard</option>
            <option value="partner">Partner (raised limits)</option>
          </SelectField>
          <Button type="submit" size="sm" variant="secondary" className="self-start" pending={patch.isPending} data-testid="tier-submit">
            Set tier
          </Button>
        </form>
      </div>
      <ResetPassword account={a} />
      <ClearSecondFactor account={a} />
      <div className="flex flex-wrap items-center justify-between gap-2">
        {a.operator ? (
          <p className="text-sm text-muted-foreground">This is your own account: it cannot be disabled.</p>
        ) : (
          <Button variant={a.disabledAt === null ? 'danger' : 'secondary'} size="sm" onClick={() => setConfirming(true)} data-testid="toggle-disabled">
            {a.disabledAt === null ? 'Disable account' : 'Enable account'}
          </Button>
        )}
        <Button variant="secondary" onClick={onClose}>
          Close
        </Button>
      </div>
      <ConfirmDialog
        open={confirming}
        title={a.disabledAt === null ? 'Disable this account?' : 'Enable this account?'}
        message={
          a.disabledAt === null
            ? 'Its API keys, wallet sign-ins and browser sessions are refused at once, until you enable it again. Nothing is deleted.'
            : 'Its keys, wallet and sessions work again at once.'
        }
        confirmLabel={a.disabledAt === null ? 'Disable' : 'Enable'}
        tone={a.disabledAt === null ? 'danger' : 'primary'}
        pending={patch.isPending}
        onCancel={() => setConfirming(false)}
        onConfirm={() => change({ disabled: a.disabledAt === null }, a.disabledAt === null ? 'The account is disabled.' : 'The account is enabled.')}
      />
    </Dialog>
  );
}
