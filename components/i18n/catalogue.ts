// The message catalogues: one JSON file per language, the same keys in each (catalogue.test.ts checks). English is
// the reference: a new string goes into en.json first, then into every other file, and a component reads it with
// `useTranslations('<namespace>')` (use-intl). The English file also types the keys (i18n-types.d.ts), so `tsc`
// refuses a key that does not exist.
import de from '@/components/i18n/messages/de.json';
import en from '@/components/i18n/messages/en.json';
import type { AppLocale } from '@/components/i18n/locales.ts';

export type Catalogue = typeof en;

const CATALOGUES: Record<AppLocale, Catalogue> = { en, de };

export const catalogue = (locale: AppLocale): Catalogue => CATALOGUES[locale];
