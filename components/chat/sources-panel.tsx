// The sources of an answer, numbered as its citations are: a web page (title, site and date, opening in a new tab) or
// a passage of the user's knowledge (the file's name and the words quoted).
import { useLocale, useTranslations } from 'use-intl';
import type { AppCitation } from '@/lib/wire.ts';
import { isWebUrl } from './citations-context.ts';
import { formatSourceDate, hostnameOf } from './format.ts';
import { GlobeIcon } from './icons.tsx';

export function SourcesPanel({ citations }: { citations: readonly AppCitation[] }) {
  const t = useTranslations('chat.sources');
  const locale = useLocale();
  if (citations.length === 0) return null;
  return (
    <section data-testid="sources-panel" aria-label={t('title')} className="mt-4 rounded-lg border border-border p-3">
      <h3 className="mb-2 flex items-center gap-1.5 text-xs font-semibold tracking-wide text-muted-foreground uppercase">
        <GlobeIcon className="size-3.5" /> {t('title')}
      </h3>
      <ol className="space-y-1.5 text-sm">
        {citations.map((c, i) => (
          <li key={`${i}-${c.url}`} className="flex min-w-0 gap-2">
            <span className="w-5 shrink-0 text-right font-semibold text-muted-foreground tabular-nums">{i + 1}.</span>
            <span className="min-w-0">
              {c.passage !== undefined ? (
                <>
                  <span className="font-medium break-words" data-testid="source-file">
                    {c.title || t('yourFile')}
                  </span>
                  <span className="line-clamp-3 text-xs whitespace-pre-line text-muted-foreground" data-testid="source-passage">
                    {c.passage}
                  </span>
                </>
              ) : isWebUrl(c.url) ? (
                <a href={c.url} target="_blank" rel="noopener noreferrer" className="font-medium break-words text-primary hover:underline">
                  {c.title || hostnameOf(c.url)}
                </a>
              ) : (
                <span className="font-medium break-words">{c.title || c.url}</span>
              )}
              {c.passage === undefined && (
                <span className="block truncate text-xs text-muted-foreground">
                  {hostnameOf(c.url)}
                  {c.date ? ` · ${formatSourceDate(c.date, locale)}` : ''}
                </span>
              )}
            </span>
          </li>
        ))}
      </ol>
    </section>
  );
}
