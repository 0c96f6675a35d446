// One balance, large and labelled.
export function BalanceCard({ label, value, note, testId }: { label: string; value: string; note: string; testId: string }) {
  return (
    <div className="flex flex-col gap-1 rounded-xl border border-border bg-card p-4 text-card-foreground">
      <dt className="text-sm text-muted-foreground">{label}</dt>
      <dd className="text-2xl font-semibold tabular-nums" data-testid={testId}>
        {value}
      </dd>
      <dd className="text-xs text-muted-foreground">{note}</dd>
    </div>
  );
}
