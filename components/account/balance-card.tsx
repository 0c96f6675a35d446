// One balance, large and labelled (`info`: e.g. what the unit is, beside the label).
import type { ReactNode } from 'react';

export function BalanceCard({ label, value, note, testId, info }: { label: string; value: string; note: string; testId: string; info?: ReactNode }) {
  return (
    <div className="flex flex-col gap-1 rounded-xl border border-border bg-card p-4 text-card-foreground">
      <dt className="flex items-center gap-1.5 text-sm text-muted-foreground">
        {label}
        {info}
      </dt>
      <dd className="text-2xl font-semibold tabular-nums" data-testid={testId}>
        {value}
      </dd>
      <dd className="text-xs text-muted-foreground">{note}</dd>
    </div>
  );
}
