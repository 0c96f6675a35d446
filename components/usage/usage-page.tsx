'use client';
// The usage page (/usage), in the Account area: the signed-in user's requests and tokens over 7, 30 or 90 days, per
// day and per model, and the latest requests with what each was charged (USD or DIEM, as charged). Spend over time
// is charted once, on the billing page; rate limits and API keys have their own pages beside this one.
// data-testid: usage-page, usage-period, usage-summary, usage-total-requests, usage-total-tokens, usage-total-usd,
// usage-total-diem, usage-empty, usage-chart, usage-day-table, usage-model-row (data-model), usage-recent-row.
import Link from 'next/link';
import { useState } from 'react';
import { useTranslations } from 'use-intl';
import { DashPage } from '@/components/billing/dash-page.tsx';
import { buttonClasses } from '@/components/ui/button.tsx';
import { cn } from '@/components/ui/cn.ts';
import { QueryContent } from '@/components/ui/query-state.tsx';
import { USAGE_PERIODS, type UsagePeriod, type UsageReport } from '@/lib/wire.ts';
import { DailyChart } from '@/components/usage/daily-chart.tsx';
import { ModelTable } from '@/components/usage/model-table.tsx';
import { useUsage } from '@/components/usage/queries.ts';
import { RecentTable } from '@/components/usage/recent-table.tsx';
import { Section } from '@/components/usage/section.tsx';
import { Segmented } from '@/components/usage/segmented.tsx';
import { SummaryCards } from '@/components/usage/summary-cards.tsx';

function UsageBody({ report }: { report: UsageReport }) {
  const t = useTranslations('usage');
  return (
    <>
      <SummaryCards totals={report.totals} />
      <p className="-mt-3 text-xs text-muted-foreground">{report.source === 'chats' ? t('sourceChats') : t('sourceBilling')}</p>
      {report.totals.requests === 0 ? (
        <div className="flex flex-col items-center gap-3 rounded-xl border border-dashed border-border px-4 py-10 text-center" data-testid="usage-empty">
          <p className="font-medium">{t('emptyTitle', { days: report.days })}</p>
          <p className="max-w-sm text-sm text-muted-foreground">{t('emptyBody')}</p>
          <Link href="/" className={buttonClasses('primary', 'md')}>
            {t('startChat')}
          </Link>
        </div>
      ) : (
        <>
          <Section id="usage-daily" title={t('perDay')}>
            <DailyChart days={report.byDay} />
          </Section>
          <Section id="usage-models" title={t('byModel')}>
            <ModelTable models={report.byModel} />
          </Section>
          <Section id="usage-recent" title={t('recent')} note={report.recent.length >= 50 ? t('recentNote') : undefined}>
            <RecentTable requests={report.recent} showVia={report.source === 'billing'} />
          </Section>
        </>
      )}
    </>
  );
}

export function UsagePage() {
  const t = useTranslations('usage');
  const [days, setDays] = useState<UsagePeriod>(30);
  const usage = useUsage(days);
  const periods = USAGE_PERIODS.map((d) => ({ value: d, label: t('days', { days: d }) }));
  return (
    <DashPage
      title={t('title')}
      description={
        <>
          {t('description')}{' '}
          <Link href="/billing" className="font-medium text-primary underline-offset-4 hover:underline">
            {t('spendLink')}
          </Link>
        </>
      }
      current="/usage"
      testId="usage-page"
      actions={<Segmented legend={t('period')} name="usage-period" options={periods} value={days} onChange={setDays} testId="usage-period" />}
    >
      <QueryContent query={usage} loading={t('loading')} failed={t('failed')}>
        {(data) => (
          <div
            className={cn('flex flex-col gap-6 transition-opacity', usage.isPlaceholderData && 'opacity-60')}
            aria-busy={usage.isPlaceholderData || undefined}
          >
            <UsageBody report={data} />
          </div>
        )}
      </QueryContent>
    </DashPage>
  );
}
