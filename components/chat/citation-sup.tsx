// Streamdown's `sup` override: a <sup data-citation="1,2"> from citation-rehype becomes numbered links to the
// answer's sources; any other superscript renders as Streamdown's own.
import { useTranslations } from 'use-intl';
import { Fragment, useContext, type ComponentProps } from 'react';
import { defaultComponents, type ExtraProps } from 'streamdown';
import { CitationsContext, isWebUrl } from './citations-context.ts';
import { hostnameOf } from './format.ts';

const DefaultSup = defaultComponents.sup;

export function CitationSup(props: ComponentProps<'sup'> & ExtraProps) {
  const t = useTranslations('chat.sources');
  const citations = useContext(CitationsContext);
  const numbers = (props as Record<string, unknown>)['data-citation'];
  if (typeof numbers !== 'string') return <DefaultSup {...props} />;
  return (
    <sup className="ml-0.5 text-[0.7em] leading-none">
      {numbers.split(',').map((n, i) => {
        const source = citations[Number(n) - 1];
        const sep = i > 0 ? ',' : '';
        // A passage of the user's own files: its number, with the file and the words on hover.
        if (source?.passage !== undefined)
          return (
            <Fragment key={n}>
              {sep}
              <span data-testid="citation" title={`${source.title ?? ''}: ${source.passage.slice(0, 300)}`} className="font-semibold text-primary">
                {n}
              </span>
            </Fragment>
          );
        if (!source || !isWebUrl(source.url))
          return (
            <Fragment key={n}>
              {sep}
              {n}
            </Fragment>
          );
        return (
          <Fragment key={n}>
            {sep}
            <a
              data-testid="citation"
              href={source.url}
              target="_blank"
              rel="noopener noreferrer"
              title={source.title || source.url}
              aria-label={t('source', { n, title: source.title || hostnameOf(source.url) })}
              className="rounded-sm px-0.5 font-semibold text-primary no-underline hover:underline"
            >
              {n}
            </a>
          </Fragment>
        );
      })}
    </sup>
  );
}
