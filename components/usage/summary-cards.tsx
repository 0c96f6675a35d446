// The period's totals: requests, tokens in and out, and spend (USD and DIEM).
'use client';
import { useTranslations } from 'use-intl';
import type { UsageTotals } from '@/lib/wire.ts';
import { useFormat } from '@/components/i18n/format.ts';

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
  const fmt = useFormat();
  return (
    <dl className="grid grid-cols-2 gap-3 lg:grid-cols-4" data-testid="usage-summary">
      <Card label={t('requests')} value={fmt.count(totals.requests)} testId="usage-total-requests" />
      <Card
        label={t('tokens')}
        value={fmt.compact(totals.promptTokens + totals.completionTokens)}
        exact={fmt.count(totals.promptTokens + totals.completionTokens)}
        note={t('tokensInOut', { in: fmt.count(totals.promptTokens), out: fmt.count(totals.completionTokens) })}
        testId="usage-total-tokens"
      />
      <Card label={t('spentUsd')} value={fmt.usd(totals.usd)} testId="usage-total-usd" />
      <Card label={t('spentDiem')} value={fmt.diem(totals.diem)} note={t('diemFirst')} testId="usage-total-diem" />
    </dl>
  );
}
