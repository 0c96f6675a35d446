'use client';
// Auto top-up for a Base wallet: the threshold, the amount and how many authorizations to sign (their sum is the
// cap), an optional cap per 30 days; the wallet signs each EIP-3009 authorization (one prompt each), the server keeps
// them and settles the next one when a charge leaves the balance below the threshold. Each one is listed with its
// state. Turning it off discards the unused ones on the server, then asks the wallet to sign their cancellations
// (EIP-712 CancelAuthorization, one prompt each), which the server submits so the chain voids them too; declined,
// they stay listed as discarded with a button to cancel them later. Loaded with the top-up form, for EVM wallets only.
// data-testid: auto-top-up, auto-top-up-form, auto-top-up-submit, auto-top-up-revoke, auto-top-up-row (data-status),
// auto-top-up-error, auto-top-up-cancel, auto-top-up-cancelled, auto-top-up-revoked.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { useTranslations } from 'use-intl';
import { call } from '@/components/api/client.ts';
import { Alert } from '@/components/ui/alert.tsx';
import { Button } from '@/components/ui/button.tsx';
import { rememberedWallet } from '@/components/wallet/use-top-up.ts';
import { describeWalletError, isRejection } from '@/components/wallet/wallet-errors.ts';
import { connectWallet, useWalletOptions } from '@/components/wallet/wallets.ts';
import type { AppUser } from '@/lib/wire.ts';
import { useFormat } from '@/components/i18n/format.ts';

const KEY = ['wallet', 'auto-top-up'] as const;
const PERIOD_DAYS = 30;
const FIELD = 'h-10 w-28 rounded-lg border border-border bg-background px-3 text-base';

const money = (raw: string) => /^\d{1,7}(\.\d{1,2})?$/.test(raw.trim());

export default function AutoTopUp({ wallet }: { wallet: NonNullable<AppUser['wallet']> }) {
  const t = useTranslations('autoTopUp');
  const tw = useTranslations('walletErrors');
  const fmt = useFormat();
  const qc = useQueryClient();
  const options = useWalletOptions();
  const option = rememberedWallet(wallet.chain, options);
  const [threshold, setThreshold] = useState('2');
  const [amount, setAmount] = useState('10');
  const [count, setCount] = useState('3');
  const [periodCap, setPeriodCap] = useState('');
  const state = useQuery({ queryKey: KEY, queryFn: () => call('GET /wallet/auto-top-up', {}) });
  const invalid = !money(threshold) || !money(amount) || !/^([1-9]|1\d|2[0-4])$/.test(count) || (periodCap !== '' && !money(periodCap));

  const save = useMutation({
    mutationFn: async () => {
      const w = await connectWallet(option!);
      if (w.address.toLowerCase() !== wallet.address.toLowerCase()) throw new Error(t('otherAccount', { address: wallet.address }));
      const { toSign } = await call('GET /wallet/auto-top-up', { query: { amount: amount.trim() } });
      if (!toSign) throw new Error(t('unavailable'));
      const payments: Record<string, unknown>[] = [];
      // One signature per authorization: each has its own random nonce, so each can be used (or cancelled) once.
      for (let i = 0; i < Number(count); i++) payments.push(await w.signPayment(toSign));
      return call('PUT /wallet/auto-top-up', {
        body: {
          thresholdUsd: Number(threshold),
          amountUsd: Number(amount),
          ...(periodCap ? { periodCapUsd: Number(periodCap), periodDays: PERIOD_DAYS } : {}),
          payments,
        },
      });
    },
    onSettled: () => qc.invalidateQueries({ queryKey: KEY }),
  });
  // The wallet signs one cancellation per discarded nonce; the server checks each and submits them (it pays the gas).
  const cancel = useMutation({
    mutationFn: async (nonces: string[]) => {
      const template = state.data?.toCancel;
      if (!template || !option) throw new Error(t('openWallet'));
      const w = await connectWallet(option);
      if (w.address.toLowerCase() !== wallet.address.toLowerCase()) throw new Error(t('otherAccount', { address: wallet.address }));
      if (!w.signTypedData) throw new Error(t('unavailable'));
      const { authorizer, ...typed } = template;
      const cancellations: { nonce: string; signature: string }[] = [];
      for (const nonce of nonces) cancellations.push({ nonce, signature: await w.signTypedData({ ...typed, message: { authorizer, nonce } }) });
      return call('POST /wallet/auto-top-up/cancel', { body: { cancellations } });
    },
    onSettled: () => qc.invalidateQueries({ queryKey: KEY }),
  });
  const revoke = useMutation({
    mutationFn: () => call('DELETE /wallet/auto-top-up', {}),
    onSuccess: (revoked) => {
      if (revoked.discarded.length > 0 && state.data?.toCancel && option) cancel.mutate(revoked.discarded.map((d) => d.nonce));
    },
    onSettled: () => qc.invalidateQueries({ queryKey: KEY }),
  });

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    if (!invalid && option) save.mutate();
  };
  const mandate = state.data?.mandate;
  const rows = state.data?.authorizations ?? [];
  // Discarded but still good on chain until they expire.
  const uncancelled = rows.filter((a) => a.status === 'revoked' && a.validBefore > Date.now()).map((a) => a.nonce);

  return (
    <section aria-labelledby="auto-top-up-heading" className="rounded-xl border border-border bg-card p-5 text-card-foreground" data-testid="auto-top-up">
      <h2 id="auto-top-up-heading" className="text-lg font-semibold">
        {t('title')}
      </h2>
      <p className="mt-1 text-sm text-muted-foreground">{t('intro')}</p>
      {mandate && (
        <p className="mt-3 text-sm" data-testid="auto-top-up-status">
          {t('active', {
            amount: fmt.usdBalance(mandate.amountUsd),
            threshold: fmt.usdBalance(mandate.thresholdUsd),
            remaining: fmt.usdBalance(mandate.remainingUsd),
          })}
          {mandate.periodCapUsd !== null &&
            ` ${t('periodStatus', { used: fmt.usdBalance(mandate.periodUsedUsd), cap: fmt.usdBalance(mandate.periodCapUsd), days: mandate.periodDays ?? PERIOD_DAYS })}`}
        </p>
      )}
      {mandate?.lastError && <Alert className="mt-3">{t('lastError', { reason: mandate.lastError })}</Alert>}
      <form onSubmit={onSubmit} noValidate className="mt-4 flex flex-wrap items-end gap-4" data-testid="auto-top-up-form">
        <label className="flex flex-col gap-1 text-sm">
          {t('threshold')}
          <input className={FIELD} inputMode="decimal" value={threshold} onChange={(e) => setThreshold(e.target.value)} data-testid="auto-top-up-threshold" />
        </label>
        <label className="flex flex-col gap-1 text-sm">
          {t('amount')}
          <input className={FIELD} inputMode="decimal" value={amount} onChange={(e) => setAmount(e.target.value)} data-testid="auto-top-up-amount" />
        </label>
        <label className="flex flex-col gap-1 text-sm">
          {t('count')}
          <input className={FIELD} inputMode="numeric" value={count} onChange={(e) => setCount(e.target.value)} data-testid="auto-top-up-count" />
        </label>
        <label className="flex flex-col gap-1 text-sm">
          {t('periodCap', { days: PERIOD_DAYS })}
          <input className={FIELD} inputMode="decimal" value={periodCap} placeholder={t('none')} onChange={(e) => setPeriodCap(e.target.value)} />
        </label>
        <Button type="submit" pending={save.isPending} disabled={!option || invalid} data-testid="auto-top-up-submit">
          {t('sign', { count: Number(count) || 0, total: money(amount) && Number(count) ? fmt.usdBalance(Number(amount) * Number(count)) : '–' })}
        </Button>
      </form>
      <p className="mt-2 text-xs text-muted-foreground">{t('capHint')}</p>
      {!option && <p className="mt-2 text-sm text-muted-foreground">{t('openWallet')}</p>}
      {(save.isError || revoke.isError) && (
        <Alert className="mt-3" data-testid="auto-top-up-error">
          {describeWalletError(save.error ?? revoke.error, 'top-up', tw)}
        </Alert>
      )}
      {revoke.isSuccess && revoke.data.discarded.length > 0 && (
        <Alert tone="success" className="mt-3" data-testid="auto-top-up-revoked">
          {t('revoked', { count: revoke.data.discarded.length })}
        </Alert>
      )}
      {cancel.isSuccess && (
        <Alert tone="success" className="mt-3" data-testid="auto-top-up-cancelled">
          {t('cancelled', { count: cancel.data.cancelled.length })}
        </Alert>
      )}
      {cancel.isError && (
        <Alert className="mt-3" data-testid="auto-top-up-error">
          {isRejection(cancel.error) ? t('cancelDeclined') : describeWalletError(cancel.error, 'top-up', tw)}
        </Alert>
      )}
      {uncancelled.length > 0 && !cancel.isPending && state.data?.toCancel && (
        <div className="mt-3 flex flex-wrap items-center gap-3 text-sm">
          <span className="text-muted-foreground">{t('stillValid', { count: uncancelled.length })}</span>
          <Button variant="secondary" disabled={!option} onClick={() => cancel.mutate(uncancelled)} data-testid="auto-top-up-cancel">
            {t('cancelOnChain')}
          </Button>
        </div>
      )}
      {rows.length > 0 && (
        <table className="mt-4 w-full text-sm">
          <thead>
            <tr className="text-left text-muted-foreground">
              <th className="py-1 font-medium">#</th>
              <th className="py-1 font-medium">{t('colAmount')}</th>
              <th className="py-1 font-medium">{t('colStatus')}</th>
              <th className="py-1 font-medium">{t('colWhen')}</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((a) => (
              <tr key={a.id} className="border-t border-border" data-testid="auto-top-up-row" data-status={a.status}>
                <td className="py-1">{a.seq}</td>
                <td className="py-1">{fmt.usdBalance(a.amountUsd)}</td>
                <td className="py-1" title={a.transaction ?? a.error ?? undefined}>
                  {t(`status.${a.status}`)}
                </td>
                <td className="py-1">{fmt.date(a.status === 'ready' ? a.validBefore : a.updatedAt, {})}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {mandate && (
        <Button variant="secondary" className="mt-4" pending={revoke.isPending} onClick={() => revoke.mutate()} data-testid="auto-top-up-revoke">
          {t('revoke')}
        </Button>
      )}
    </section>
  );
}
