'use client';
// Adding credit from the signed-in wallet: choose an amount, sign the USDC payment in the wallet, and the balance
// updates once the server has settled it. Loaded only for wallet users.
// data-testid: wallet-top-up, top-up-amount (AmountPicker), top-up-submit, top-up-error, top-up-done.
import { useTranslations } from 'use-intl';
import { useState, type FormEvent } from 'react';
import AutoTopUp from '@/components/wallet/auto-top-up.tsx';
import { Alert } from '@/components/ui/alert.tsx';
import { Button } from '@/components/ui/button.tsx';
import { AmountPicker, amountError } from '@/components/wallet/amount-picker.tsx';
import { rememberedWallet, useTopUp } from '@/components/wallet/use-top-up.ts';
import { describeWalletError } from '@/components/wallet/wallet-errors.ts';
import { useWalletOptions } from '@/components/wallet/wallets.ts';
import type { AppUser } from '@/lib/wire.ts';
import { useFormat } from '@/components/i18n/format.ts';

// The server enforces its own maximum; this only stops obvious typos before the wallet is opened.
const MAX_HINT = 10_000;

export default function WalletTopUp({ wallet }: { wallet: NonNullable<AppUser['wallet']> }) {
  const t = useTranslations('topUp');
  const tw = useTranslations('walletErrors');
  const fmt = useFormat();
  const [amount, setAmount] = useState('10');
  const [touched, setTouched] = useState(false);
  const options = useWalletOptions();
  const option = rememberedWallet(wallet.chain, options);
  const topUp = useTopUp();
  const invalid = amountError(amount, MAX_HINT, t);

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    setTouched(true);
    if (invalid || !option) return;
    topUp.mutate({ amountUsd: amount.trim(), option, address: wallet.address });
  };

  return (
    <>
      <section
        id="add-credit"
        aria-labelledby="add-credit-heading"
        className="scroll-mt-6 rounded-xl border border-border bg-card p-5 text-card-foreground"
        data-testid="wallet-top-up"
      >
        <h2 id="add-credit-heading" className="text-lg font-semibold">
          {t('title')}
        </h2>
        <p className="mt-1 text-sm text-muted-foreground">{t('intro', { chain: wallet.chain })}</p>
        <form onSubmit={onSubmit} noValidate className="mt-4 flex flex-col gap-4">
          <AmountPicker value={amount} onChange={setAmount} error={touched ? invalid : undefined} disabled={topUp.isPending} />
          {topUp.isError && <Alert data-testid="top-up-error">{describeWalletError(topUp.error, 'top-up', tw)}</Alert>}
          {topUp.isSuccess && !topUp.isPending && (
            <Alert tone="success" data-testid="top-up-done">
              {t('done', { amount: fmt.usdBalance(topUp.data.amountCreditedUsd), balance: fmt.usdBalance(topUp.data.balanceUsd) })}
            </Alert>
          )}
          {!option && <p className="text-sm text-muted-foreground">{t('openWallet')}</p>}
          <Button type="submit" size="lg" className="self-start" pending={topUp.isPending} disabled={!option} data-testid="top-up-submit">
            {t('submit', { amount: invalid ? '' : fmt.usdBalance(Number(amount)) }).trim()}
          </Button>
        </form>
      </section>
      {/* Base only: a Solana payment cannot be signed ahead of time (lib/wallet/auto-topup.ts). */}
      {wallet.chain === 'evm' && <AutoTopUp wallet={wallet} />}
    </>
  );
}
