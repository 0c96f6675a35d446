'use client';
// The fields of a key, shared by "create" and "edit": description, expiry (a UTC day, optional), consumption caps in
// USD and DIEM per day, week, month or lifetime, and the models it may run. Values are kept as typed text; toLimits()
// turns them into the API's body (blank = no cap, any model), and the server's 400 names any field it refuses.
import type { KeyLimitPeriod } from '@/lib/wire.ts';
import { InputField, SelectField } from '@/components/ui/fields.tsx';

export interface KeyFormValues {
  description: string;
  /** YYYY-MM-DD or ''. */
  expires: string;
  usd: string;
  diem: string;
  period: KeyLimitPeriod;
  /** Model ids, comma-separated; '' = any. */
  models: string;
}

export const EMPTY_KEY_FORM: KeyFormValues = { description: '', expires: '', usd: '', diem: '', period: 'EPOCH', models: '' };

export const PERIOD_LABEL: Record<KeyLimitPeriod, string> = {
  EPOCH: 'per day (UTC)',
  WEEK: 'per week (from Monday, UTC)',
  MONTH: 'per month',
  LIFETIME: 'in total',
};

/** A cap field's problem, or undefined (blank means no cap). */
export function capError(v: string): string | undefined {
  if (!v.trim()) return undefined;
  const n = Number(v);
  return Number.isFinite(n) && n >= 0 ? undefined : 'Enter an amount of 0 or more, or leave it blank';
}

const cap = (v: string) => (v.trim() ? Number(v) : null);
const modelList = (v: string) => {
  const ids = v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return ids.length ? ids : null;
};
export const toLimits = (v: KeyFormValues) => ({
  consumptionLimit: { usd: cap(v.usd), diem: cap(v.diem) },
  limitPeriod: v.period,
  models: modelList(v.models),
});

export function KeyFields({
  idPrefix,
  values,
  onChange,
  descriptionMax,
}: {
  idPrefix: string;
  values: KeyFormValues;
  onChange: (v: KeyFormValues) => void;
  descriptionMax: number;
}) {
  const set = (patch: Partial<KeyFormValues>) => onChange({ ...values, ...patch });
  const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
  return (
    <div className="grid grid-cols-1 gap-3 sm:grid-cols-2">
      <InputField
        id={`${idPrefix}-description`}
        label="Description"
        value={values.description}
        maxLength={descriptionMax}
        onChange={(e) => set({ description: e.target.value })}
        hint="What or who uses it, so you recognise it later."
        data-testid="key-description"
        autoComplete="off"
      />
      <InputField
        id={`${idPrefix}-expires`}
        label="Expires (optional)"
        type="date"
        min={tomorrow}
        value={values.expires}
        onChange={(e) => set({ expires: e.target.value })}
        hint="At the start of that day, UTC. Blank: never."
        data-testid="key-expires"
      />
      <InputField
        id={`${idPrefix}-usd`}
        label="USD cap (optional)"
        inputMode="decimal"
        value={values.usd}
        onChange={(e) => set({ usd: e.target.value })}
        error={capError(values.usd)}
        hint="Most this key may spend in USD."
        data-testid="key-cap-usd"
        autoComplete="off"
      />
      <InputField
        id={`${idPrefix}-diem`}
        label="DIEM cap (optional)"
        inputMode="decimal"
        value={values.diem}
        onChange={(e) => set({ diem: e.target.value })}
        error={capError(values.diem)}
        hint="Most this key may spend in DIEM."
        data-testid="key-cap-diem"
        autoComplete="off"
      />
      <SelectField
        id={`${idPrefix}-period`}
        label="Caps apply"
        value={values.period}
        onChange={(e) => set({ period: e.target.value as KeyLimitPeriod })}
        data-testid="key-period"
      >
        {Object.entries(PERIOD_LABEL).map(([p, label]) => (
          <option key={p} value={p}>
            {label}
          </option>
        ))}
      </SelectField>
      <InputField
        id={`${idPrefix}-models`}
        label="Models (optional)"
        value={values.models}
        onChange={(e) => set({ models: e.target.value })}
        hint="Model ids, separated by commas: the key may run only these. Blank: any model."
        data-testid="key-models"
        autoComplete="off"
      />
    </div>
  );
}
