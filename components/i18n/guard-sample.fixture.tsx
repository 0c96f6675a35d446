// A sample for no-english.test.ts: what its scan must catch (each hard-coded string below but the ones marked as
// code) and what it must let be (message keys, class names, test ids, comparisons, console output).
import { useTranslations } from 'use-intl';

const OPTIONS = [{ value: 'a', label: 'And this' }];

function failure(code: string): string {
  if (code === 'Not Found Here') console.warn('Logged for developers, not shown.');
  return code === 'x' ? 'Something went wrong.' : code;
}

export function Sample({ busy, name }: { busy: boolean; name: string }) {
  const t = useTranslations('nav');
  return (
    <div title={t('sidebar')} data-options={OPTIONS.length} data-testid="Sample testid here" className={busy ? 'Text Hidden' : 'flex'}>
      Hard-coded words
      <input aria-describedby="x" placeholder={t('searchChats')} />
      <button type="button" aria-label="Also hard-coded" onClick={() => failure('x')}>
        {t('newChat')} Lagoon {busy ? 'Saving…' : 'Save'}
      </button>
      <a href="/x" title={`Open ${name}`}>
        {name}
      </a>
    </div>
  );
}
