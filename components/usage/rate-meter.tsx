'use client';
// One limit's meter: a bar of what is left (a native <meter>, so assistive technology reads value and range) with
// "remaining / limit" and when the window refills.
import { useTranslations } from 'use-intl';
import { formatWait, useCountdown } from '@/components/ui/use-countdown.ts';
import type { RateMeter as Meter } from '@/lib/wire.ts';
import { useFormat } from '@/components/i18n/format.ts';

export function RateMeter({ label, meter, unit, testId }: { label: string; meter: Meter; unit: string; testId: string }) {
  const t = useTranslations('rateMeter');
  const fmt = useFormat();
  const full = meter.remaining >= meter.limit;
  const left = useCountdown(full ? null : meter.resetsAt);
  const low = meter.remaining < meter.limit * 0.2;
  return (
    <div className="flex flex-col gap-1" data-testid={testId} data-remaining={meter.remaining} data-limit={meter.limit}>
      <div className="flex items-baseline justify-between gap-2 text-sm">
        <span className="text-muted-foreground">{label}</span>
        <span className="tabular-nums">
          <span className="font-medium">{fmt.count(meter.remaining)}</span>
          <span className="text-muted-foreground">{t('left', { limit: fmt.count(meter.limit), unit })}</span>
        </span>
      </div>
      <meter
        min={0}
        max={meter.limit}
        low={meter.limit * 0.2}
        optimum={meter.limit}
        value={meter.remaining}
        aria-label={t('label', { label, remaining: fmt.count(meter.remaining), limit: fmt.count(meter.limit), unit })}
        className="sr-only"
      />
      <div className="h-2 overflow-hidden rounded-full bg-muted" aria-hidden="true">
        <div
          className={low ? 'h-full rounded-full bg-error' : 'h-full rounded-full bg-primary'}
          style={{ width: `${Math.max(0, Math.min(100, (meter.remaining / meter.limit) * 100))}%` }}
        />
      </div>
      <p className="text-xs text-muted-foreground">{full ? t('full') : left > 0 ? t('refillsIn', { wait: formatWait(left) }) : t('refilling')}</p>
    </div>
  );
}
