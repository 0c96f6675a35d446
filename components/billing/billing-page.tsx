'use client';
// The billing page (/billing): what the account has (USD credit, today's DIEM and its refill, what requests in flight
// hold), what it spends (today, 7 and 30 days, and when the credit runs out at this rate), adding credit (a wallet
// top-up; the operator's grant otherwise), the charts, and the statement with its exports.
// data-testid: billing-page, balance-usd, balance-held, balance-diem, spend-today, spend-7d, spend-30d, projection,
// billing-add-credit (plus chart-* and the statement's, see billing-charts.tsx and statement.tsx).
import { useTranslations } from 'use-intl';
import dynamic from 'next/dynamic';
import Link from 'next/link';
import { useIsMutating, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { DashPage } from '@/components/billing/dash-page.tsx';
import { billingKeys, NO_FILTERS, useBillingSummary, useStatement } from '@/components/billing/queries.ts';
import { StatCard } from '@/components/billing/stat-card.tsx';
import { Statement } from '@/components/billing/statement.tsx';
import { useMe } from '@/components/session/use-me.ts';
import { QueryContent } from '@/components/ui/query-state.tsx';
import { Spinner } from '@/components/ui/spinner.tsx';
import { Section } from '@/components/usage/section.tsx';
import type { BillingSummary, SpendWindow } from '@/lib/wire.ts';
import { type Formats, useFormat } from '@/components/i18n/format.ts';

const BillingCharts = dynamic(() => import('@/components/billing/billing-charts.tsx'), {
  ssr: false,
  loading: () => <Loading what="loadingCharts" />,
});
// Wallet code (wagmi, viem, the x402 client) is downloaded only by users who signed in with a wallet.
const WalletTopUp = dynamic(() => import('@/components/wallet/wallet-top-up.tsx'), {
  ssr: false,
  loading: () => <Loading what="loadingTopUp" />,
});

function Loading({ what }: { what: 'loadingCharts' | 'loadingTopUp' }) {
  const t = useTranslations('billing');
  return <Spinner label={t(what)} className="size-5" />;
}

type T = ReturnType<typeof useTranslations<'billing'>>;

const spendNote = (t: T, w: SpendWindow) => t('requests', { count: w.requests });

function projection(t: T, fmt: Formats, s: BillingSummary): string {
  const { usdPerDay, runsOutAt } = s.projection;
  if (runsOutAt === null) return t('notRunningDown');
  const days = (runsOutAt - s.now) / 86_400_000;
  const perDay = fmt.usd(usdPerDay);
  if (days > 1000) return t('lastsOver1000', { perDay });
  const date = fmt.date(runsOutAt);
  return days < 1 ? t('lastsUnderADay', { perDay, date }) : t('lastsDays', { perDay, days: Math.floor(days), date });
}

function AddCredit({ s }: { s: BillingSummary }) {
  const t = useTranslations('billing');
  const me = useMe();
  const wallet = me.data?.user.wallet;
  if (s.topUp === 'wallet' && wallet) return <WalletTopUp wallet={wallet} />;
  return (
    <div className="rounded-xl border border-border bg-card p-5 text-sm text-muted-foreground" data-testid="billing-add-credit">
      {s.isOperator
        ? t.rich('operatorGrant', {
            link: (words) => (
              <Link href="/operator" className="font-medium text-primary underline-offset-4 hover:underline">
                {words}
              </Link>
            ),
          })
        : t.rich('operatorAdds', {
            link: (words) => (
              <Link href="/account#add-credit" className="font-medium text-primary underline-offset-4 hover:underline">
                {words}
              </Link>
            ),
          })}
    </div>
  );
}

function Body({ s }: { s: BillingSummary }) {
  const t = useTranslations('billing');
  const td = useTranslations('diem');
  const fmt = useFormat();
  const b = s.balances;
  return (
    <>
      <Section id="billing-balances" title={t('balances')}>
        <p className="mb-3 text-sm text-muted-foreground" data-testid="diem-line">
          <span className="font-medium text-foreground">{td('what')}</span> {td('explained')}
        </p>
        <dl className="grid grid-cols-1 gap-3 sm:grid-cols-3">
          <StatCard label={t('usdCredit')} value={fmt.usd(b.usd)} note={t('usdCreditNote')} testId="balance-usd" />
          <StatCard
            label={t('diemToday')}
            value={fmt.diem(b.diem)}
            note={
              b.diemDailyAllowance > 0
                ? t('allowanceRefills', {
                    amount: fmt.diem(b.diemDailyAllowance),
                    when: fmt.dateTime(b.diemResetsAt, { weekday: 'short', month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit' }),
                  })
                : t('noAllowance')
            }
            testId="balance-diem"
          />
          <StatCard label={t('held')} value={fmt.spend(b.usdHeld, b.diemHeld)} note={t('heldNote')} testId="balance-held" />
        </dl>
      </Section>
      <Section id="billing-spend" title={t('spend')}>
        <dl className="grid grid-cols-1 gap-3 sm:grid-cols-3">
          <StatCard label={t('today')} value={fmt.spend(s.spend.today.usd, s.spend.today.diem)} note={spendNote(t, s.spend.today)} testId="spend-today" />
          <StatCard
            label={t('last7')}
            value={fmt.spend(s.spend.last7Days.usd, s.spend.last7Days.diem)}
            note={spendNote(t, s.spend.last7Days)}
            testId="spend-7d"
          />
          <StatCard
            label={t('last30')}
            value={fmt.spend(s.spend.last30Days.usd, s.spend.last30Days.diem)}
            note={spendNote(t, s.spend.last30Days)}
            testId="spend-30d"
          />
        </dl>
        <p className="text-sm" data-testid="projection">
          {projection(t, fmt, s)}
        </p>
      </Section>
      <Section id="billing-add" title={t('addCredit')}>
        <AddCredit s={s} />
      </Section>
      <Section id="billing-charts" title={t('charts')}>
        <BillingCharts chart={s.chart} />
      </Section>
      <Section id="billing-statement" title={t('statement')} note={t('statementNote')}>
        <Statement filters={s.filters} />
      </Section>
    </>
  );
}

export function BillingPage() {
  const t = useTranslations('billing');
  const summary = useBillingSummary();
  // No waterfall: the statement's first page and the charts' code load alongside the summary.
  useStatement(NO_FILTERS, 1);
  useEffect(() => void import('@/components/billing/billing-charts.tsx'), []);
  const qc = useQueryClient();
  // A top-up or a grant elsewhere changes balances and the statement: refresh both when the page is shown again.
  useEffect(() => () => void qc.invalidateQueries({ queryKey: billingKeys.all }), [qc]);
  // And at once when an action on this page ends (a wallet top-up: its own hook refreshes only the account).
  const mutating = useIsMutating();
  const wasMutating = useRef(0);
  useEffect(() => {
    if (wasMutating.current > 0 && mutating === 0) void qc.invalidateQueries({ queryKey: billingKeys.all });
    wasMutating.current = mutating;
  }, [mutating, qc]);
  return (
    <DashPage title={t('title')} description={t('description')} current="/billing" testId="billing-page">
      <QueryContent query={summary} loading={t('loading')} failed={t('failed')}>
        {(data) => <Body s={data} />}
      </QueryContent>
    </DashPage>
  );
}
