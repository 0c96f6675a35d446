'use client';
// A newcomer's first screen says what they can spend without paying: the free daily DIEM left today and when it
// refills (nothing when this server gives none).
import { useTranslations } from 'use-intl';
import { useQuery } from '@tanstack/react-query';
import { call, qk } from '@/components/api/client.ts';
import { DiemInfo } from '@/components/account/diem-info.tsx';
import { useFormat } from '@/components/i18n/format.ts';

export function FreeAllowance() {
  const t = useTranslations('freeAllowance');
  const fmt = useFormat();
  const account = useQuery({ queryKey: qk.account, queryFn: ({ signal }) => call('GET /account', { signal }) });
  const a = account.data;
  const daily = a?.diemDailyAllowance ?? 0;
  if (!a || daily <= 0) return null;
  return (
    <p className="inline-flex items-center gap-1 text-sm text-muted-foreground" data-testid="free-allowance">
      {t('left', { left: fmt.diemBalance(a.balances.diem), daily: fmt.diemBalance(daily) })}
      <DiemInfo />
    </p>
  );
}
