// How to add credit on this deployment, as the server describes it (operator instructions or a top-up page).
// It is the target of "Add credit" links shown with 402 errors (/account#add-credit).
import { useTranslations } from 'use-intl';
import type { AccountSummary } from '@/lib/wire.ts';

export function AddCredit({ topUp }: { topUp: AccountSummary['topUp'] }) {
  const t = useTranslations('addCredit');
  return (
    <section id="add-credit" aria-labelledby="add-credit-heading" className="scroll-mt-6 rounded-xl border border-border bg-card p-5 text-card-foreground">
      <h2 id="add-credit-heading" className="text-lg font-semibold">
        {t('title')}
      </h2>
      <p className="mt-2 whitespace-pre-wrap break-words text-sm text-muted-foreground" data-testid="top-up-how-to">
        {/* `backticks` mark a command: shown as code, still as text nodes. Odd split indexes sit between backticks. */}
        {topUp.howTo.split('`').map((part, i) =>
          i % 2 ? (
            <code key={i} className="rounded bg-muted px-1.5 py-0.5 font-mono text-[0.85em] text-foreground">
              {part}
            </code>
          ) : (
            part
          ),
        )}
      </p>
      {topUp.url && (
        <a
          href={topUp.url}
          target="_blank"
          rel="noopener noreferrer"
          className="mt-4 inline-flex h-10 items-center rounded-lg bg-primary px-4 text-sm font-medium text-primary-foreground hover:bg-primary-hover"
        >
          {t('title')}
          <span className="sr-only">{t('newTab')}</span>
        </a>
      )}
    </section>
  );
}
