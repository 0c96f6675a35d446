'use client';
// "Continue with a wallet" on the sign-in page. The wallet code (wagmi, viem, wallet-standard) is large, so it is
// fetched only when the user opens this section: email users never download it.
// data-testid: wallet-continue.
import { useTranslations } from 'use-intl';
import dynamic from 'next/dynamic';
import { useState } from 'react';
import { Button } from '@/components/ui/button.tsx';
import { Spinner } from '@/components/ui/spinner.tsx';

const WalletSignIn = dynamic(() => import('@/components/wallet/wallet-sign-in.tsx'), {
  ssr: false,
  loading: () => <Looking />,
});

function Looking() {
  const t = useTranslations('walletEntry');
  return (
    <div className="flex justify-center py-3 text-muted-foreground">
      <Spinner label={t('looking')} className="size-5" />
    </div>
  );
}

export function WalletEntry({ next }: { next: string }) {
  const t = useTranslations('walletEntry');
  const [open, setOpen] = useState(false);
  return (
    <section aria-labelledby="wallet-heading" className="flex flex-col gap-3">
      <div className="flex items-center gap-3 text-xs text-muted-foreground" aria-hidden>
        <span className="h-px flex-1 bg-border" />
        {t('or')}
        <span className="h-px flex-1 bg-border" />
      </div>
      <h2 id="wallet-heading" className="sr-only">
        {t('continue')}
      </h2>
      {open ? (
        <WalletSignIn next={next} />
      ) : (
        <Button variant="secondary" size="lg" className="w-full" onClick={() => setOpen(true)} data-testid="wallet-continue">
          {t('continue')}
        </Button>
      )}
    </section>
  );
}
