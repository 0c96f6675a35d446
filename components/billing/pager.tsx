'use client';
// Previous / next for a paginated table, with where we are ("Page 2 of 7 · 140 entries") announced politely.
import { useTranslations } from 'use-intl';
import { Button } from '@/components/ui/button.tsx';

export function Pager({
  page,
  totalPages,
  total,
  noun,
  onPage,
  testId,
}: {
  page: number;
  totalPages: number;
  total: number;
  /** What is counted (the catalogue's `pager.nouns`). */
  noun: 'entries' | 'refusals' | 'accounts' | 'actions' | 'characters' | 'reviews';
  onPage: (p: number) => void;
  testId?: string;
}) {
  const t = useTranslations('pager');
  return (
    <div className="flex flex-wrap items-center justify-between gap-2 text-sm" data-testid={testId}>
      <p className="text-muted-foreground" aria-live="polite">
        {t('summary', { page, totalPages, items: t(`nouns.${noun}`, { count: total }) })}
      </p>
      <div className="flex gap-2">
        <Button size="sm" variant="secondary" disabled={page <= 1} onClick={() => onPage(page - 1)}>
          {t('previous')}
        </Button>
        <Button size="sm" variant="secondary" disabled={page >= totalPages} onClick={() => onPage(page + 1)}>
          {t('next')}
        </Button>
      </div>
    </div>
  );
}
