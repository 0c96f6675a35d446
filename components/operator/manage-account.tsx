'use client';
// Managing one account (a dialog): grant USD credit with a note, set the daily DIEM allowance and the tier, disable
// or enable it (after a confirmation). Every change is audited on the server with the operator's name.
// data-testid: manage-dialog, grant-usd, grant-note, grant-submit, diem-daily, diem-submit, tier-select, tier-submit,
// toggle-disabled, manage-error, manage-done.
import { useTranslations } from 'use-intl';
import { tierKey } from '@/components/limits/tier-name.ts';
import { type FormEvent, useId, useState } from 'react';
import { useGrant, usePatchAccount } from '@/components/operator/queries.ts';
import { ResetPassword } from '@/components/operator/reset-password.tsx';
import { ClearSecondFactor } from '@/components/operator/clear-second-factor.tsx';
import { Alert } from '@/components/ui/alert.tsx';
import { Button } from '@/components/ui/button.tsx';
import { ConfirmDialog } from '@/components/ui/confirm-dialog.tsx';
import { Dialog } from '@/components/ui/dialog.tsx';
import { InputField, SelectField } from '@/components/ui/fields.tsx';
import type { OperatorAccount } from '@/lib/wire.ts';
import { useFormat } from '@/components/i18n/format.ts';

/** Who holds an account, as the operator reads it: the email, else `wallet` (the word, translated) and the address. */
export const ownerOf = (a: OperatorAccount, wallet: string) => a.email ?? (a.wallet ? `${wallet} ${a.wallet.split(':').pop()}` : a.name);
/** An amount field's problem as a `manageAccount` message key, or undefined. */
const amountError = (v: string, min: number) => {
  const n = Number(v);
  return v.trim() && Number.isFinite(n) && n >= min ? undefined : min > 0 ? ('amountAbove' as const) : ('amountAtLeast' as const);
};

export function ManageAccount({ account, onClose }: { account: OperatorAccount; onClose: () => void }) {
  const t = useTranslations('manageAccount');
  const tc = useTranslations('common');
  const tiers = useTranslations('tiers');
  const fmt = useFormat();
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
  const usdError = amountError(usd, 0.000001);
  const diemError = amountError(diem, 0);

  const onGrant = (e: FormEvent) => {
    e.preventDefault();
    setTouched(true);
    if (amountError(usd, 0.000001)) return;
    grant.mutate(
      { id: a.id, body: { usd: Number(usd), ...(note.trim() ? { note: note.trim() } : {}) } },
      {
        onSuccess: (r) => {
          setA(r.account);
          setDone(t('granted', { amount: fmt.usd(Number(usd)), balance: fmt.usd(r.account.balances.usd) }));
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
    <Dialog open onClose={onClose} title={t('title', { owner: ownerOf(a, tc('wallet')) })} testId="manage-dialog" className="w-[min(36rem,calc(100vw-2rem))]">
      <p className="text-sm text-muted-foreground">
        {t('summary', {
          usd: fmt.usd(a.balances.usd),
          diem: fmt.diem(a.balances.diem),
          daily: fmt.diem(a.balances.diemDaily),
          tier: tiers(tierKey(a.tier)),
        })}
        {a.disabledAt !== null && t('disabledSuffix')}
      </p>
      {done && (
        <Alert tone="success" data-testid="manage-done">
          {done}
        </Alert>
      )}
      {error && <Alert data-testid="manage-error">{error.message}</Alert>}
      <form onSubmit={onGrant} noValidate className="flex flex-col gap-3 rounded-lg border border-border p-3">
        <h3 className="font-medium">{t('grantTitle')}</h3>
        <div className="grid grid-cols-1 gap-3 sm:grid-cols-2">
          <InputField
            id={`${id}-usd`}
            label={t('amount')}
            inputMode="decimal"
            value={usd}
            onChange={(e) => setUsd(e.target.value)}
            error={touched && usdError ? t(usdError) : undefined}
            data-testid="grant-usd"
            autoComplete="off"
          />
          <InputField
            id={`${id}-note`}
            label={t('note')}
            maxLength={200}
            value={note}
            onChange={(e) => setNote(e.target.value)}
            hint={t('noteHint')}
            data-testid="grant-note"
            autoComplete="off"
          />
        </div>
        <Button type="submit" size="sm" className="self-start" pending={grant.isPending} data-testid="grant-submit">
          {t('grant')}
        </Button>
      </form>
      <div className="grid grid-cols-1 gap-3 rounded-lg border border-border p-3 sm:grid-cols-2">
        <form
          className="flex flex-col gap-2"
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            if (!amountError(diem, 0)) change({ diemDaily: Number(diem) }, t('allowanceNow', { amount: fmt.diem(Number(diem)) }));
          }}
        >
          <InputField
            id={`${id}-diem`}
            label={t('allowance')}
            inputMode="decimal"
            value={diem}
            onChange={(e) => setDiem(e.target.value)}
            error={diemError && t(diemError)}
            data-testid="diem-daily"
            autoComplete="off"
          />
          <Button type="submit" size="sm" variant="secondary" className="self-start" pending={patch.isPending} data-testid="diem-submit">
            {t('setAllowance')}
          </Button>
        </form>
        <form
          className="flex flex-col gap-2"
          onSubmit={(e) => {
            e.preventDefault();
            change({ tier }, t('tierNow', { tier: tiers(tierKey(tier)) }));
          }}
        >
          <SelectField id={`${id}-tier`} label={t('tierLabel')} value={tier} onChange={(e) => setTier(e.target.value as typeof tier)} data-testid="tier-select">
            <option value="default">{tiers('standard')}</option>
            <option value="partner">{t('partnerOption')}</option>
          </SelectField>
          <Button type="submit" size="sm" variant="secondary" className="self-start" pending={patch.isPending} data-testid="tier-submit">
            {t('setTier')}
          </Button>
        </form>
      </div>
      <ResetPassword account={a} />
      <ClearSecondFactor account={a} />
      <div className="flex flex-wrap items-center justify-between gap-2">
        {a.operator ? (
          <p className="text-sm text-muted-foreground">{t('own')}</p>
        ) : (
          <Button variant={a.disabledAt === null ? 'danger' : 'secondary'} size="sm" onClick={() => setConfirming(true)} data-testid="toggle-disabled">
            {a.disabledAt === null ? t('disableAccount') : t('enableAccount')}
          </Button>
        )}
        <Button variant="secondary" onClick={onClose}>
          {t('close')}
        </Button>
      </div>
      <ConfirmDialog
        open={confirming}
        title={a.disabledAt === null ? t('disableTitle') : t('enableTitle')}
        message={a.disabledAt === null ? t('disableBody') : t('enableBody')}
        confirmLabel={a.disabledAt === null ? t('disable') : t('enable')}
        tone={a.disabledAt === null ? 'danger' : 'primary'}
        pending={patch.isPending}
        onCancel={() => setConfirming(false)}
        onConfirm={() => change({ disabled: a.disabledAt === null }, a.disabledAt === null ? t('disabledNow') : t('enabledNow'))}
      />
    </Dialog>
  );
}
