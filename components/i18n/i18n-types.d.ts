// use-intl's keys and locales, typed from the English catalogue: t('no.such.key') does not compile.
import type en from '@/components/i18n/messages/en.json';
import type { AppLocale } from '@/components/i18n/locales.ts';

declare module 'use-intl' {
  interface AppConfig {
    Locale: AppLocale;
    Messages: typeof en;
  }
}
