'use client';
// A chart with its figures beside it: a titled figure holding the drawing and a "Show as a table" toggle whose table
// carries the same numbers (always in the accessibility tree; shown on demand to everyone else). The chart colours
// are CSS variables set here, one palette per theme, each at least 3:1 against the card in its theme.
import { type ReactNode, useId } from 'react';
import { cn } from '@/components/ui/cn.ts';
import { TableToggle } from '@/components/ui/table-toggle.tsx';

/** --chart-1…6 for the series, per theme (the `dark` class on <html> switches them with the rest of the design tokens). */
export const CHART_PALETTE =
  '[--chart-1:#0f766e] [--chart-2:#c2410c] [--chart-3:#6d28d9] [--chart-4:#0369a1] [--chart-5:#a16207] [--chart-6:#475569] ' +
  'dark:[--chart-1:#5eead4] dark:[--chart-2:#fdba74] dark:[--chart-3:#c4b5fd] dark:[--chart-4:#7dd3fc] dark:[--chart-5:#fde047] dark:[--chart-6:#cbd5e1]';

export const seriesColour = (i: number) => `var(--chart-${(i % 6) + 1})`;

export interface ChartFrameProps {
  title: string;
  /** One sentence that says what the chart shows (its accessible description). */
  summary: string;
  testId: string;
  chart: ReactNode;
  table: ReactNode;
  tableLabel: string;
}

export function ChartFrame({ title, summary, testId, chart, table, tableLabel }: ChartFrameProps) {
  const headingId = useId();
  return (
    <figure
      aria-labelledby={headingId}
      className={cn('relative flex min-w-0 flex-col gap-3 rounded-xl border border-border bg-card p-4 text-card-foreground', CHART_PALETTE)}
      data-testid={testId}
    >
      <div>
        <h3 id={headingId} className="font-medium">
          {title}
        </h3>
        <p className="text-sm text-muted-foreground">{summary}</p>
      </div>
      <div className="h-56 w-full min-w-0">{chart}</div>
      <TableToggle label={tableLabel}>{table}</TableToggle>
    </figure>
  );
}

export const CELL = 'py-1 pr-3 text-right tabular-nums';
export const HEAD = 'py-1 pr-3 text-right font-medium';
