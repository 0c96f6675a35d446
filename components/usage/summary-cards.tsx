// The period's totals: requests, tokens in and out, and spend (USD and DIEM).
'use client';
import { useTranslations } from 'use-intl';
import type { UsageTotals } from '@/lib/wire.ts';
import { formatCompact, formatCount, formatDiem, formatUsd } from '@/components/usage/format.ts';

function Card({ label, value, exact, note, testId }: { label: string; value: string; exact?: string; note?: string; testId: string }) {
  return (
    <div className="flex min-w-0 flex-col gap-1 rounded-xl border border-border bg-card p-4 text-card-foreground">
      <dt className="text-sm text-muted-foreground">{label}</dt>
      <dd className="break-words text-xl font-semibold tabular-nums sm:text-2xl" data-testid={testId} title={exact}>
        {value}
        {exact && exact !== value && <span className="sr-only"> ({exact})</span>}
      </dd>
      {note && <dd className="text-xs text-muted-foreground">{note}</dd>}
    </div>
  );
}

export function SummaryCards({ totals }: { totals: UsageTotals }) {
  const t = useTranslations('usage');
  return (
    <dl className="grid grid-cols-2 gap-3 lg:grid-cols-4" data-testid="usage-summary">
      <Card label={t('requests')} value={formatCount(totals.requests)} testId="usage-total-requests" />
      <Card
        label={t('tokens')}
        value={formatCompact(totals.promptTokens + totals.completionTokens)}
        exact={formatCount(totals.promptTokens + totals.completionTokens)}
        note={t('tokensInOut', { in: formatCount(totals.promptTokens), out: formatCount(totals.completionTokens) })}
        testId="usage-total-tokens"
      />
      <Card label={t('spentUsd')} value={formatUsd(totals.usd)} testId="usage-total-usd" />
      <Card label={t('spentDiem')} value={formatDiem(totals.diem)} note={t('diemFirst')} testId="usage-total-diem" />
    </dl>
  );
}
