'use client';
// Signing in with a wallet: pick a discovered wallet, connect, sign the server's challenge text in the wallet, and
// the server answers with the same session as email sign-in. Loaded only when the user asks for it.
// data-testid: wallet-options, wallet-option (WalletButton), wallet-error, wallet-none.
import { useTranslations } from 'use-intl';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { call, qk, setCsrfToken } from '@/components/api/client.ts';
import { Alert } from '@/components/ui/alert.tsx';
import { WalletButton } from '@/components/wallet/wallet-button.tsx';
import { describeWalletError } from '@/components/wallet/wallet-errors.ts';
import { useWalletOptions } from '@/components/wallet/wallets.ts';
import { signedChallenge } from '@/components/wallet/sign-challenge.ts';
import { REMEMBERED_WALLET, type WalletOption } from '@/components/wallet/types.ts';
import type { MeResponse } from '@/lib/wire.ts';

async function signInWith(option: WalletOption): Promise<MeResponse> {
  return call('POST /wallet/sign-in', { body: await signedChallenge(option) });
}

export default function WalletSignIn({ next }: { next: string }) {
  const t = useTranslations('walletEntry');
  const tw = useTranslations('walletErrors');
  const options = useWalletOptions();
  const qc = useQueryClient();
  const router = useRouter();
  const [chosen, setChosen] = useState<string | null>(null);
  const signIn = useMutation({
    mutationFn: signInWith,
    onSuccess: (me, option) => {
      try {
        localStorage.setItem(REMEMBERED_WALLET, JSON.stringify({ key: option.key, chain: option.chain }));
      } catch {
        // Storage may be off; the account page then lets the user pick the wallet again.
      }
      qc.removeQueries();
      setCsrfToken(me.csrfToken);
      qc.setQueryData(qk.me, me);
      router.replace(next);
    },
  });

  if (!options.length) {
    return (
      <p className="text-sm text-muted-foreground" data-testid="wallet-none">
        {t('none')}
      </p>
    );
  }
  return (
    <div className="flex flex-col gap-2" data-testid="wallet-options">
      {signIn.isError && <Alert data-testid="wallet-error">{describeWalletError(signIn.error, 'sign-in', tw)}</Alert>}
      <ul className="flex flex-col gap-2" aria-label={t('inBrowser')}>
        {options.map((o) => (
          <li key={o.id}>
            <WalletButton
              option={o}
              pending={(signIn.isPending || signIn.isSuccess) && chosen === o.id}
              disabled={signIn.isPending || signIn.isSuccess}
              onClick={() => {
                setChosen(o.id);
                signIn.mutate(o);
              }}
            />
          </li>
        ))}
      </ul>
      <p className="text-xs text-muted-foreground">{t('signNote')}</p>
    </div>
  );
}
