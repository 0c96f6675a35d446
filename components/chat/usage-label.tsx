// Tokens and cost of one answer, from its stored usage: "1,204 in · 356 out · $0.00041" (or DIEM when used).
import type { AppUsage } from '@/lib/wire.ts';
import { DiemInfo } from '@/components/account/diem-info.tsx';
import { formatCharge, formatCount } from './format.ts';

export function UsageLabel({ usage }: { usage: AppUsage }) {
  const cost = formatCharge(usage.costUsd, usage.costDiem);
  return (
    <span className="inline-flex items-center gap-1">
      <span
        data-testid="usage"
        title={`${formatCount(usage.promptTokens)} prompt tokens, ${formatCount(usage.completionTokens)} completion tokens (${formatCount(usage.totalTokens)} in all); cost ${cost}`}
        className="text-xs text-muted-foreground tabular-nums"
      >
        {formatCount(usage.promptTokens)} in · {formatCount(usage.completionTokens)} out · {cost}
      </span>
      {usage.costDiem > 0 && <DiemInfo />}
    </span>
  );
}
