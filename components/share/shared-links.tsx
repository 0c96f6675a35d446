'use client';
// The account page's list of every share link the user made, each with its address, copy and revoke.
// data-testid: account-shares (and share-link rows, share-dialog.tsx).
import { useTranslations } from 'use-intl';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { call } from '@/components/api/client.ts';
import { ShareRow, shareKeys } from './share-dialog.tsx';

export function SharedLinks() {
  const t = useTranslations('sharedLinks');
  const qc = useQueryClient();
  const shares = useQuery({ queryKey: shareKeys.all, queryFn: () => call('GET /shares') });
  return (
    <section aria-labelledby="shares-heading" data-testid="account-shares">
      <h2 id="shares-heading" className="mb-2 text-lg font-semibold">
        {t('title')}
      </h2>
      <p className="mb-2 text-sm text-muted-foreground">{t('intro')}</p>
      {shares.data?.items.length === 0 && <p className="text-sm text-muted-foreground">{t('none')}</p>}
      {shares.data && shares.data.items.length > 0 && (
        <ul className="flex flex-col gap-2">
          {shares.data.items.map((s) => (
            <ShareRow key={s.token} share={s} onRevoked={() => void qc.invalidateQueries({ queryKey: shareKeys.all })} />
          ))}
        </ul>
      )}
    </section>
  );
}
