'use client';
// Linking a wallet in Settings: the sign-in page's wallet flow (pick a discovered wallet, sign the server's challenge),
// with the signed challenge sent to POST /account/wallet instead of signing in. Loaded only when asked for, like the
// sign-in's: the wallet code is large.
// data-testid: wallet-link-options, wallet-option (WalletButton), wallet-link-error, wallet-none.
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslations } from 'use-intl';
import { call } from '@/components/api/client.ts';
import { Alert } from '@/components/ui/alert.tsx';
import { WalletButton } from '@/components/wallet/wallet-button.tsx';
import { describeWalletError, isRejection } from '@/components/wallet/wallet-errors.ts';
import { useWalletOptions } from '@/components/wallet/wallets.ts';
import { signedChallenge } from '@/components/wallet/sign-challenge.ts';
import type { WalletOption } from '@/components/wallet/types.ts';
import type { MeResponse } from '@/lib/wire.ts';

export default function WalletLink({ onLinked }: { onLinked: (me: MeResponse) => void }) {
  const t = useTranslations('signInMethods');
  const tw = useTranslations('walletErrors');
  const options = useWalletOptions();
  const [chosen, setChosen] = useState<string | null>(null);
  const link = useMutation({
    mutationFn: async (option: WalletOption) => call('POST /account/wallet', { body: await signedChallenge(option) }),
    onSuccess: onLinked,
  });
  if (!options.length) {
    return (
      <p className="text-sm text-muted-foreground" data-testid="wallet-none">
        {t('noWallet')}
      </p>
    );
  }
  return (
    <div className="flex flex-col gap-2" data-testid="wallet-link-options">
      {link.isError && (
        <Alert data-testid="wallet-link-error">{isRejection(link.error) ? t('linkDeclined') : describeWalletError(link.error, 'sign-in', tw)}</Alert>
      )}
      <ul className="flex flex-col gap-2" aria-label={t('walletsHere')}>
        {options.map((o) => (
          <li key={o.id}>
            <WalletButton
              option={o}
              pending={link.isPending && chosen === o.id}
              disabled={link.isPending}
              onClick={() => {
                setChosen(o.id);
                link.mutate(o);
              }}
            />
          </li>
        ))}
      </ul>
      <p className="text-xs text-muted-foreground">{t('signNote')}</p>
    </div>
  );
}
