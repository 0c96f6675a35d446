// A sample for catalogue.test.ts: what its guard must catch (three hard-coded strings) and what it must let be.
import { useTranslations } from 'use-intl';

const OPTIONS = [{ value: 'a', label: 'And this' }];

export function Sample() {
  const t = useTranslations('nav');
  return (
    <div title={t('sidebar')} data-options={OPTIONS.length}>
      Hard-coded words
      <input aria-describedby="x" placeholder={t('searchChats')} />
      <button type="button" aria-label="Also hard-coded">
        {t('newChat')} Lagoon
      </button>
    </div>
  );
}
