'use client';
// The fields of a key, shared by "create" and "edit": description, expiry (a UTC day, optional), consumption caps in
// USD and DIEM per day, week, month or lifetime, and the models it may run. Values are kept as typed text; toLimits()
// turns them into the API's body (blank = no cap, any model), and the server's 400 names any field it refuses.
import { useTranslations } from 'use-intl';
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

/** The cap periods, in the picker's order (their names are the catalogue's `keyForm.periods`). */
export const PERIODS: KeyLimitPeriod[] = ['EPOCH', 'WEEK', 'MONTH', 'LIFETIME'];

/** A cap field's problem as a `keyForm` message key, or undefined (blank means no cap). */
export function capError(v: string): 'badCap' | undefined {
  if (!v.trim()) return undefined;
  const n = Number(v);
  return Number.isFinite(n) && n >= 0 ? undefined : 'badCap';
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
  const t = useTranslations('keyForm');
  const set = (patch: Partial<KeyFormValues>) => onChange({ ...values, ...patch });
  const usdError = capError(values.usd);
  const diemError = capError(values.diem);
  const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
  return (
    <div className="grid grid-cols-1 gap-3 sm:grid-cols-2">
      <InputField
        id={`${idPrefix}-description`}
        label={t('description')}
        value={values.description}
        maxLength={descriptionMax}
        onChange={(e) => set({ description: e.target.value })}
        hint={t('descriptionHint')}
        data-testid="key-description"
        autoComplete="off"
      />
      <InputField
        id={`${idPrefix}-expires`}
        label={t('expires')}
        type="date"
        min={tomorrow}
        value={values.expires}
        onChange={(e) => set({ expires: e.target.value })}
        hint={t('expiresHint')}
        data-testid="key-expires"
      />
      <InputField
        id={`${idPrefix}-usd`}
        label={t('usdCap')}
        inputMode="decimal"
        value={values.usd}
        onChange={(e) => set({ usd: e.target.value })}
        error={usdError && t(usdError)}
        hint={t('usdCapHint')}
        data-testid="key-cap-usd"
        autoComplete="off"
      />
      <InputField
        id={`${idPrefix}-diem`}
        label={t('diemCap')}
        inputMode="decimal"
        value={values.diem}
        onChange={(e) => set({ diem: e.target.value })}
        error={diemError && t(diemError)}
        hint={t('diemCapHint')}
        data-testid="key-cap-diem"
        autoComplete="off"
      />
      <SelectField
        id={`${idPrefix}-period`}
        label={t('capsApply')}
        value={values.period}
        onChange={(e) => set({ period: e.target.value as KeyLimitPeriod })}
        data-testid="key-period"
      >
        {PERIODS.map((p) => (
          <option key={p} value={p}>
            {t(`periods.${p}`)}
          </option>
        ))}
      </SelectField>
      <InputField
        id={`${idPrefix}-models`}
        label={t('models')}
        value={values.models}
        onChange={(e) => set({ models: e.target.value })}
        hint={t('modelsHint')}
        data-testid="key-models"
        autoComplete="off"
      />
    </div>
  );
}
