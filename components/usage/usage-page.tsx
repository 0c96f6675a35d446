'use client';
// The usage dashboard (/usage): the signed-in user's requests, tokens and spend over 7, 30 or 90 days, per day and
// per model, the latest requests, the rate-limit meters and the account's API keys.
// data-testid: usage-page, usage-period, usage-summary, usage-total-requests, usage-total-tokens, usage-total-usd,
// usage-total-diem, usage-empty, usage-chart, usage-day-table, usage-model-row (data-model), usage-recent-row,
// rate-limit-model (data-model), rate-requests / rate-tokens (data-remaining, data-limit), key-row (data-revoked).
import Link from 'next/link';
import { useState } from 'react';
import { buttonClasses } from '@/components/ui/button.tsx';
import { cn } from '@/components/ui/cn.ts';
import { QueryContent } from '@/components/ui/query-state.tsx';
import { USAGE_PERIODS, type UsagePeriod, type UsageReport } from '@/lib/wire.ts';
import { DailyChart } from '@/components/usage/daily-chart.tsx';
import { KeysList } from '@/components/usage/keys-list.tsx';
import { ModelTable } from '@/components/usage/model-table.tsx';
import { useUsage } from '@/components/usage/queries.ts';
import { RateLimits } from '@/components/usage/rate-limits.tsx';
import { RecentTable } from '@/components/usage/recent-table.tsx';
import { Section } from '@/components/usage/section.tsx';
import { Segmented } from '@/components/usage/segmented.tsx';
import { SummaryCards } from '@/components/usage/summary-cards.tsx';

const PERIOD_OPTIONS = USAGE_PERIODS.map((d) => ({ value: d, label: `${d} days` }));

function UsageBody({ report }: { report: UsageReport }) {
  const source =
    report.source === 'chats'
      ? 'From the usage the inference provider reported for your chats on this server (deleted chats are not counted).'
      : 'From this server’s billing records: your chats here and every request made with your account’s API keys.';
  return (
    <>
      <SummaryCards totals={report.totals} />
      <p className="-mt-3 text-xs text-muted-foreground">{source}</p>
      {report.totals.requests === 0 ? (
        <div className="flex flex-col items-center gap-3 rounded-xl border border-dashed border-border px-4 py-10 text-center" data-testid="usage-empty">
          <p className="font-medium">No usage in the last {report.days} days</p>
          <p className="max-w-sm text-sm text-muted-foreground">Every answer you get is counted here, with its tokens and what it cost.</p>
          <Link href="/" className={buttonClasses('primary', 'md')}>
            Start a chat
          </Link>
        </div>
      ) : (
        <>
          <Section id="usage-daily" title="Per day">
            <DailyChart days={report.byDay} />
          </Section>
          <Section id="usage-models" title="By model">
            <ModelTable models={report.byModel} />
          </Section>
          <Section id="usage-recent" title="Recent requests" note={report.recent.length >= 50 ? 'The latest 50 of the period.' : undefined}>
            <RecentTable requests={report.recent} showVia={report.source === 'billing'} />
          </Section>
        </>
      )}
    </>
  );
}

export function UsagePage() {
  const [days, setDays] = useState<UsagePeriod>(30);
  const usage = useUsage(days);
  return (
    <div className="flex-1 overflow-y-auto" data-testid="usage-page">
      <div className="mx-auto flex max-w-5xl flex-col gap-6 px-4 py-6 sm:px-6 sm:py-8">
        <header className="flex flex-col gap-4 sm:flex-row sm:items-end sm:justify-between">
          <div>
            <h1 className="text-2xl font-semibold tracking-tight">Usage</h1>
            <p className="mt-1 text-sm text-muted-foreground">
              What you used and spent, your rate limits and your API keys.{' '}
              <Link href="/account" className="font-medium text-primary underline-offset-4 hover:underline">
                Balances and credit
              </Link>
            </p>
          </div>
          <Segmented legend="Period" name="usage-period" options={PERIOD_OPTIONS} value={days} onChange={setDays} testId="usage-period" />
        </header>
        <QueryContent query={usage} loading="Loading your usage" failed="Could not load your usage">
          {(data) => (
            <div
              className={cn('flex flex-col gap-6 transition-opacity', usage.isPlaceholderData && 'opacity-60')}
              aria-busy={usage.isPlaceholderData || undefined}
            >
              <UsageBody report={data} />
            </div>
          )}
        </QueryContent>
        <Section id="usage-limits" title="Rate limits">
          <RateLimits />
        </Section>
        <Section id="usage-keys" title="API keys" note="Metadata only: a key’s secret is shown once, when it is created, and never again.">
          <KeysList />
        </Section>
      </div>
    </div>
  );
}
