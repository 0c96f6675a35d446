'use client';
// Previous / next for a paginated table, with where we are ("Page 2 of 7 · 140 entries") announced politely.
import { Button } from '@/components/ui/button.tsx';
import { formatCount } from '@/components/usage/format.ts';

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
  noun: string;
  onPage: (p: number) => void;
  testId?: string;
}) {
  return (
    <div className="flex flex-wrap items-center justify-between gap-2 text-sm" data-testid={testId}>
      <p className="text-muted-foreground" aria-live="polite">
        Page {page} of {totalPages} · {formatCount(total)} {noun}
      </p>
      <div className="flex gap-2">
        <Button size="sm" variant="secondary" disabled={page <= 1} onClick={() => onPage(page - 1)}>
          Previous
        </Button>
        <Button size="sm" variant="secondary" disabled={page >= totalPages} onClick={() => onPage(page + 1)}>
          Next
        </Button>
      </div>
    </div>
  );
}
