// The top-up amount: presets and a custom amount (USD, at least the minimum, at most two decimals).
import { useTranslations } from 'use-intl';
import { cn } from '@/components/ui/cn.ts';

export const PRESETS = ['5', '10', '25', '50'];
export const MIN_TOP_UP = 5;

/** An error for the custom amount, or undefined when it can be paid. */
export function amountError(raw: string, max: number, t: ReturnType<typeof useTranslations<'topUp'>>): string | undefined {
  if (!/^\d{1,7}(\.\d{1,2})?$/.test(raw.trim())) return t('amountShape');
  const n = Number(raw);
  if (n < MIN_TOP_UP) return t('amountMin', { min: MIN_TOP_UP });
  if (n > max) return t('amountMax', { max });
  return undefined;
}

export function AmountPicker({ value, onChange, error, disabled }: { value: string; onChange: (v: string) => void; error?: string; disabled: boolean }) {
  const t = useTranslations('topUp');
  return (
    <fieldset className="flex flex-col gap-3" disabled={disabled}>
      <legend className="mb-2 text-sm font-medium">{t('amount')}</legend>
      <div className="flex flex-wrap gap-2">
        {PRESETS.map((p) => (
          <button
            key={p}
            type="button"
            aria-pressed={value === p}
            onClick={() => onChange(p)}
            className={cn(
              'h-10 min-w-16 rounded-lg border px-4 text-sm font-medium transition-colors',
              value === p ? 'border-primary bg-primary text-primary-foreground' : 'border-border bg-background hover:bg-accent',
            )}
          >
            ${p}
          </button>
        ))}
      </div>
      <label htmlFor="top-up-amount" className="text-sm text-muted-foreground">
        {t('other')}
      </label>
      <input
        id="top-up-amount"
        inputMode="decimal"
        autoComplete="off"
        value={value}
        onChange={(e) => onChange(e.target.value)}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? 'top-up-amount-error' : undefined}
        className="h-11 w-40 rounded-lg border border-border bg-background px-3 text-base"
        data-testid="top-up-amount"
      />
      {error && (
        <p id="top-up-amount-error" className="text-sm text-error">
          {error}
        </p>
      )}
    </fieldset>
  );
}
