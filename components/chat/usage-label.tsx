// Tokens and cost of one answer, from its stored usage: "1,204 in · 356 out · $0.00041" (or DIEM when used).
import { useLocale, useTranslations } from 'use-intl';
import type { AppUsage } from '@/lib/wire.ts';
import { DiemInfo } from '@/components/account/diem-info.tsx';
import { formatCharge, formatCount } from './format.ts';

export function UsageLabel({ usage }: { usage: AppUsage }) {
  const t = useTranslations('chat.message');
  const locale = useLocale();
  const cost = formatCharge(usage.costUsd, usage.costDiem, locale);
  const counts = { prompt: formatCount(usage.promptTokens, locale), completion: formatCount(usage.completionTokens, locale), cost };
  return (
    <span className="inline-flex items-center gap-1">
      <span
        data-testid="usage"
        title={t('usageTitle', { ...counts, total: formatCount(usage.totalTokens, locale) })}
        className="text-xs text-muted-foreground tabular-nums"
      >
        {t('usage', counts)}
      </span>
      {usage.costDiem > 0 && <DiemInfo />}
    </span>
  );
}
