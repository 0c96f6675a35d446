// The frame of the Account area's pages (account, usage, billing, API keys, rate limits, operator): a scrolling
// column with the area's tabs, a heading and a one-line description.
import type { ReactNode } from 'react';
import { AccountNav } from '@/components/billing/nav-links.tsx';
import { cn } from '@/components/ui/cn.ts';

export function DashPage({
  title,
  description,
  current,
  testId,
  actions,
  narrow,
  children,
}: {
  title: string;
  description?: ReactNode;
  /** The tab to mark current: the page's address ('/operator' for the operator's subpages). */
  current: string;
  testId: string;
  /** Controls beside the heading (the usage page's period). */
  actions?: ReactNode;
  /** The account page's narrower column. */
  narrow?: boolean;
  children: ReactNode;
}) {
  return (
    <div className="flex-1 overflow-y-auto" data-testid={testId}>
      <div className={cn('mx-auto flex flex-col gap-6 px-4 py-6 sm:px-6 sm:py-8', narrow ? 'max-w-3xl' : 'max-w-5xl')}>
        <AccountNav current={current} />
        <header className="flex flex-col gap-4 sm:flex-row sm:items-end sm:justify-between">
          <div className="flex flex-col gap-2">
            <h1 className="text-2xl font-semibold tracking-tight">{title}</h1>
            {description && <p className="text-sm text-muted-foreground">{description}</p>}
          </div>
          {actions}
        </header>
        {children}
      </div>
    </div>
  );
}
