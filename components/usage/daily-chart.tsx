'use client';
// Per-day bars of tokens or requests, drawn by hand in SVG (no chart library). Spend is charted on the billing page
// only (in the units charged); the table here keeps each day's charge as charged (USD and DIEM apart).
// The picture is summarised for screen readers, and the same
// figures are always in a table: read by screen readers, shown on demand to everyone else.
import { useState } from 'react';
import { useTranslations } from 'use-intl';
import type { UsageDay } from '@/lib/wire.ts';
import { TableToggle } from '@/components/ui/table-toggle.tsx';
import { Segmented } from '@/components/usage/segmented.tsx';
import { useFormat } from '@/components/i18n/format.ts';

type Metric = 'tokens' | 'requests';

const metricValue = (d: UsageDay, m: Metric) => (m === 'tokens' ? d.promptTokens + d.completionTokens : d.requests);

export function DailyChart({ days }: { days: UsageDay[] }) {
  const t = useTranslations('usage');
  const fmt = useFormat();
  const [metric, setMetric] = useState<Metric>('tokens');
  const metrics = [
    { value: 'tokens', label: t('tokens') },
    { value: 'requests', label: t('requests') },
  ] as const;
  const unit = metric === 'tokens' ? t('unitTokens') : t('unitRequests');
  const values = days.map((d) => metricValue(d, metric));
  const max = Math.max(...values, 0);
  const peak = days[values.indexOf(max)];
  const W = days.length * 10;
  const H = 100;
  const summary =
    max > 0
      ? t('chartSummary', { unit, from: fmt.day(days[0].date), to: fmt.day(days.at(-1)!.date), max: fmt.count(max), peak: fmt.day(peak.date) })
      : t('chartEmpty', { unit });

  return (
    <div className="flex flex-col gap-3 rounded-xl border border-border bg-card p-4" data-testid="usage-chart">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <p className="text-sm text-muted-foreground">{max > 0 ? t('perUtcDayPeak', { max: fmt.count(max) }) : t('perUtcDay')}</p>
        <Segmented legend={t('chartShows')} name="usage-metric" options={metrics} value={metric} onChange={setMetric} />
      </div>
      <svg viewBox={`0 0 ${W} ${H}`} preserveAspectRatio="none" role="img" aria-label={summary} className="h-40 w-full">
        {[0.25, 0.5, 0.75].map((f) => (
          <line key={f} x1={0} x2={W} y1={H * f} y2={H * f} className="stroke-border" strokeWidth={0.4} vectorEffect="non-scaling-stroke" />
        ))}
        {days.map((d, i) => {
          const v = values[i];
          const h = max > 0 ? Math.max((v / max) * (H - 2), v > 0 ? 1.5 : 0) : 0;
          return (
            <rect key={d.date} x={i * 10 + 1.5} width={7} y={H - h} height={h} rx={1} className="fill-primary">
              <title>{`${fmt.day(d.date)}: ${fmt.count(v)}`}</title>
            </rect>
          );
        })}
        <line x1={0} x2={W} y1={H - 0.2} y2={H - 0.2} className="stroke-input" strokeWidth={1} vectorEffect="non-scaling-stroke" />
      </svg>
      <div className="flex justify-between text-xs text-muted-foreground" aria-hidden="true">
        <span>{fmt.day(days[0].date)}</span>
        <span>{fmt.day(days.at(-1)!.date)}</span>
      </div>
      <TableToggle label={t('tableLabel')}>
        <table className="w-full text-sm tabular-nums" data-testid="usage-day-table">
          <caption className="sr-only">{t('tableCaption')}</caption>
          <thead className="text-left text-muted-foreground">
            <tr>
              <th scope="col" className="py-1 pr-3 font-medium">
                {t('day')}
              </th>
              <th scope="col" className="py-1 pr-3 text-right font-medium">
                {t('requests')}
              </th>
              <th scope="col" className="py-1 pr-3 text-right font-medium">
                {t('tokens')}
              </th>
              <th scope="col" className="py-1 text-right font-medium">
                {t('spent')}
              </th>
            </tr>
          </thead>
          <tbody>
            {days.map((d) => (
              <tr key={d.date} className="border-t border-border">
                <th scope="row" className="py-1 pr-3 text-left font-normal">
                  {fmt.day(d.date, { weekday: 'short', month: 'short', day: 'numeric' })}
                </th>
                <td className="py-1 pr-3 text-right">{fmt.count(d.requests)}</td>
                <td className="py-1 pr-3 text-right">{fmt.count(d.promptTokens + d.completionTokens)}</td>
                <td className="py-1 text-right">{fmt.spend(d.usd, d.diem)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableToggle>
    </div>
  );
}
