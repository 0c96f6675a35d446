'use client';
// The language of the app, on the account page: automatic (the browser's Accept-Language) or a chosen one, kept in a
// cookie for a year (components/i18n/i18n-provider.tsx); the page re-renders in it at once.
// data-testid: language-settings, language-select.
import { useEffect, useId, useState } from 'react';
import { useLocale, useTranslations } from 'use-intl';
import { savedLocaleChoice, useSetLocale } from '@/components/i18n/i18n-provider.tsx';
import { type AppLocale, LOCALE_NAMES, LOCALES } from '@/components/i18n/locales.ts';
import { SelectField } from '@/components/ui/fields.tsx';

export function LanguageSettings() {
  const t = useTranslations('language');
  const id = useId();
  const locale = useLocale();
  const setLocale = useSetLocale();
  // The saved choice lives in a cookie the server reads; the browser learns it after hydration.
  const [choice, setChoice] = useState<AppLocale | 'auto'>('auto');
  useEffect(() => setChoice(savedLocaleChoice()), []);
  return (
    <section aria-labelledby={`${id}-h`} className="flex flex-col gap-3" data-testid="language-settings">
      <h2 id={`${id}-h`} className="text-lg font-semibold">
        {t('heading')}
      </h2>
      <SelectField
        id={`${id}-select`}
        label={t('label')}
        value={choice}
        onChange={(e) => {
          const next = e.target.value as AppLocale | 'auto';
          setChoice(next);
          setLocale(next);
        }}
        className="sm:max-w-sm"
        data-testid="language-select"
      >
        <option value="auto">{t('auto')}</option>
        {LOCALES.map((l) => (
          <option key={l} value={l} lang={l}>
            {LOCALE_NAMES[l]}
          </option>
        ))}
      </SelectField>
      <p className="text-sm text-muted-foreground">{t('hint', { current: LOCALE_NAMES[locale] })}</p>
    </section>
  );
}
