'use client';
// The billing charts: spend per UTC day stacked by model (30 days), tokens per day, and requests per hour (24 h).
//
// Drawn by Recharts (maintained, declarative React components over SVG): the charts are ordinary React trees that
// re-render from the query data, scale as vectors, take their colours from CSS variables (so both themes hold), and
// get keyboard focus with arrow-key navigation from its accessibility layer; the numbers are also in a table beside
// each chart. uPlot would draw faster on a canvas, but would need imperative glue (create, resize, destroy) around
// React and a canvas carries no accessible content; for at most a few hundred points SVG costs nothing noticeable.
// Loaded on demand (next/dynamic) so the page's first bundle stays small.
import type { ComponentProps, ReactNode } from 'react';
import { useTranslations } from 'use-intl';
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { CELL, ChartFrame, HEAD, seriesColour } from '@/components/billing/chart-frame.tsx';
import type { BillingSummary } from '@/lib/wire.ts';
import { type Formats, useFormat } from '@/components/i18n/format.ts';

const AXIS = { fill: 'var(--muted-foreground)', fontSize: 12 };
const TOOLTIP = {
  contentStyle: { background: 'var(--popover)', border: '1px solid var(--border)', borderRadius: 8, color: 'var(--popover-foreground)' },
  labelStyle: { color: 'var(--popover-foreground)' },
  itemStyle: { color: 'var(--popover-foreground)' },
  cursor: { fill: 'var(--accent)' },
};
// Axis ticks of tiny amounts stay short: "$0.000015" rather than a rounded "$0.00" (fmt.usd's rule below a cent).
const axisUsd = (fmt: Formats) => (v: number) => (v === 0 ? fmt.number(0, { style: 'currency', currency: 'USD', maximumFractionDigits: 0 }) : fmt.usd(v));
const axisDiem = (fmt: Formats) => (v: number) => fmt.number(v, { maximumSignificantDigits: 2 });

function peak<T>(rows: T[], value: (r: T) => number): T | undefined {
  let best: T | undefined;
  for (const r of rows) if (value(r) > 0 && (!best || value(r) > value(best))) best = r;
  return best;
}

/** The bar charts' common frame: a grid, the day or hour labels along the bottom, the value axis and the tooltip. */
function Bars({
  data,
  title,
  yAxis,
  format,
  children,
}: {
  data: object[];
  title: string;
  yAxis: ComponentProps<typeof YAxis>;
  format: (v: number) => string;
  children: ReactNode;
}) {
  return (
    <ResponsiveContainer width="100%" height="100%">
      <BarChart data={data} margin={{ top: 4, right: 4, bottom: 0, left: 0 }} title={title}>
        <CartesianGrid vertical={false} stroke="var(--border)" />
        <XAxis dataKey="label" tick={AXIS} stroke="var(--input)" interval="preserveStartEnd" minTickGap={24} />
        <YAxis tick={AXIS} stroke="var(--input)" {...yAxis} />
        <Tooltip {...TOOLTIP} formatter={(v) => format(Number(v))} />
        {children}
      </BarChart>
    </ResponsiveContainer>
  );
}

/** A chart's figures: one row per day or hour (its label heading the row), one numeric column per heading. */
function FigureTable({
  testId,
  caption,
  first,
  columns,
  rows,
}: {
  testId: string;
  caption: string;
  first: string;
  columns: string[];
  rows: { key: string | number; label: string; cells: string[] }[];
}) {
  return (
    <table className="w-full text-sm" data-testid={testId}>
      <caption className="sr-only">{caption}</caption>
      <thead className="text-muted-foreground">
        <tr>
          <th scope="col" className="py-1 pr-3 text-left font-medium">
            {first}
          </th>
          {columns.map((c, i) => (
            <th key={i} scope="col" className={HEAD}>
              {c}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr key={r.key} className="border-t border-border">
            <th scope="row" className="py-1 pr-3 text-left font-normal whitespace-nowrap">
              {r.label}
            </th>
            {r.cells.map((c, i) => (
              <td key={i} className={CELL}>
                {c}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

type Day = BillingSummary['chart']['days'][number];

/**
 * Spend per day stacked by model, in one unit: USD and DIEM are never added together or drawn on one axis, so each
 * unit that was charged gets its own chart (USD alone when nothing was).
 */
function SpendChart({ days, models, unit }: { days: Day[]; models: string[]; unit: 'USD' | 'DIEM' }) {
  const t = useTranslations('billingCharts');
  const fmt = useFormat();
  const modelLabel = (m: string) => (m === 'other' ? t('otherModels') : m);
  const usd = unit === 'USD';
  const of = (d: Day) => (usd ? d.spend : d.spendDiem);
  const totalOf = (d: Day) => (usd ? d.total : d.totalDiem);
  const format = usd ? fmt.usd : (v: number) => `${fmt.diem(v)} DIEM`;
  const axis = usd ? axisUsd(fmt) : axisDiem(fmt);
  const first = fmt.day(days[0].date);
  const last = fmt.day(days.at(-1)!.date);
  const top = peak(days, totalOf);
  const title = t('spentPerDay', { unit });
  const dayRows = days.map((d) => ({ ...d, label: fmt.day(d.date) }));
  return (
    <ChartFrame
      title={title}
      testId={usd ? 'chart-spend' : 'chart-spend-diem'}
      summary={top ? t('spentSummary', { unit, first, last, day: fmt.day(top.date), amount: format(totalOf(top)) }) : t('nothingSpent', { first, last })}
      chart={
        <Bars
          data={dayRows}
          title={title}
          yAxis={{
            width: 76,
            tickFormatter: axis,
            label: usd ? undefined : { value: 'DIEM', angle: -90, position: 'insideLeft', fill: 'var(--muted-foreground)', fontSize: 12 },
          }}
          format={format}
        >
          <Legend wrapperStyle={{ color: 'var(--foreground)', fontSize: 12 }} />
          {models.map((m, i) => (
            <Bar key={m} dataKey={(d: Day) => of(d)[m] ?? 0} name={modelLabel(m)} stackId="spend" fill={seriesColour(i)} isAnimationActive={false} />
          ))}
        </Bars>
      }
      tableLabel={title}
      table={
        <FigureTable
          testId={usd ? 'chart-spend-table' : 'chart-spend-diem-table'}
          caption={t('spentCaption', { unit })}
          first={t('day')}
          columns={[...models.map(modelLabel), t('total')]}
          rows={days.map((d) => ({ key: d.date, label: fmt.day(d.date), cells: [...models.map((m) => format(of(d)[m] ?? 0)), format(totalOf(d))] }))}
        />
      }
    />
  );
}

export default function BillingCharts({ chart }: { chart: BillingSummary['chart'] }) {
  const t = useTranslations('billingCharts');
  const fmt = useFormat();
  const { days, models, hours } = chart;
  const tokenPeak = peak(days, (d) => d.tokens);
  const hourPeak = peak(hours, (h) => h.requests);
  const dayRows = days.map((d) => ({ ...d, label: fmt.day(d.date) }));
  const hourRows = hours.map((h) => ({ ...h, label: fmt.time(h.hour) }));
  const spentUsd = days.some((d) => d.total > 0);
  const spentDiem = days.some((d) => d.totalDiem > 0);

  return (
    <div className="grid grid-cols-1 gap-4 lg:grid-cols-2">
      {(spentUsd || !spentDiem) && (
        <div className="lg:col-span-2">
          <SpendChart days={days} models={models} unit="USD" />
        </div>
      )}
      {spentDiem && (
        <div className="lg:col-span-2">
          <SpendChart days={days} models={models} unit="DIEM" />
        </div>
      )}
      <ChartFrame
        title={t('tokensPerDay')}
        testId="chart-tokens"
        summary={tokenPeak ? t('tokensSummary', { day: fmt.day(tokenPeak.date), tokens: fmt.count(tokenPeak.tokens) }) : t('noTokens')}
        chart={
          <Bars
            data={dayRows}
            title={t('tokensPerDay')}
            yAxis={{ width: 48, tickFormatter: (v: number) => fmt.number(v, { notation: 'compact', maximumFractionDigits: 1 }) }}
            format={fmt.count}
          >
            <Bar dataKey="tokens" name={t('tokens')} fill={seriesColour(3)} isAnimationActive={false} />
          </Bars>
        }
        tableLabel={t('tokensPerDay')}
        table={
          <FigureTable
            testId="chart-tokens-table"
            caption={t('tokensCaption')}
            first={t('day')}
            columns={[t('tokens'), t('requests')]}
            rows={days.map((d) => ({ key: d.date, label: fmt.day(d.date), cells: [fmt.count(d.tokens), fmt.count(d.requests)] }))}
          />
        }
      />
      <ChartFrame
        title={t('hoursTitle')}
        testId="chart-hours"
        summary={hourPeak ? t('hoursSummary', { hour: fmt.time(hourPeak.hour), requests: fmt.count(hourPeak.requests) }) : t('noRequests')}
        chart={
          <Bars data={hourRows} title={t('requestsPerHour')} yAxis={{ width: 40, allowDecimals: false }} format={fmt.count}>
            <Bar dataKey="requests" name={t('requests')} fill={seriesColour(0)} isAnimationActive={false} />
          </Bars>
        }
        tableLabel={t('requestsPerHour')}
        table={
          <FigureTable
            testId="chart-hours-table"
            caption={t('hoursTitle')}
            first={t('hour')}
            columns={[t('requests')]}
            rows={hours.map((h) => ({ key: h.hour, label: fmt.time(h.hour), cells: [fmt.count(h.requests)] }))}
          />
        }
      />
    </div>
  );
}
