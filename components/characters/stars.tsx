'use client';
// Star ratings: a read-only row (the average, spoken as "4.5 out of 5") and the 1–5 picker of a review, which is a
// radio group so arrow keys move between the stars and the choice is announced.
import { useTranslations } from 'use-intl';
import { useId } from 'react';
import { cn } from '@/components/ui/cn.ts';

function Star({ fill, className }: { fill: number; className?: string }) {
  const id = useId();
  return (
    <svg viewBox="0 0 20 20" aria-hidden="true" className={cn('size-4', className)}>
      <defs>
        <linearGradient id={id}>
          <stop offset={`${fill * 100}%`} stopColor="currentColor" />
          <stop offset={`${fill * 100}%`} stopColor="currentColor" stopOpacity="0.2" />
        </linearGradient>
      </defs>
      <path fill={`url(#${id})`} d="M10 1.5l2.6 5.3 5.9.9-4.3 4.1 1 5.8L10 14.9l-5.2 2.7 1-5.8L1.5 7.7l5.9-.9z" />
    </svg>
  );
}

export function StarRow({ value, className }: { value: number; className?: string }) {
  const t = useTranslations('characters');
  return (
    <span role="img" aria-label={t('outOf5', { value: value.toFixed(1) })} className={cn('inline-flex text-amber-700 dark:text-amber-400', className)}>
      {[0, 1, 2, 3, 4].map((i) => (
        <Star key={i} fill={Math.max(0, Math.min(1, value - i))} />
      ))}
    </span>
  );
}

export function StarPicker({ value, onChange, name }: { value: number; onChange: (v: number) => void; name: string }) {
  const t = useTranslations('characters');
  return (
    <fieldset className="flex flex-col gap-1">
      <legend className="text-sm font-medium">{t('yourRating')}</legend>
      <div className="flex gap-0.5" data-testid="review-stars">
        {[1, 2, 3, 4, 5].map((n) => (
          <label
            key={n}
            className="relative cursor-pointer rounded p-0.5 text-amber-700 has-[:focus-visible]:ring-2 has-[:focus-visible]:ring-ring dark:text-amber-400"
          >
            <input type="radio" name={name} value={n} checked={value === n} onChange={() => onChange(n)} className="sr-only" data-testid={`review-star-${n}`} />
            <Star fill={n <= value ? 1 : 0} className="size-7" />
            <span className="sr-only">{t('stars', { count: n })}</span>
          </label>
        ))}
      </div>
    </fieldset>
  );
}
