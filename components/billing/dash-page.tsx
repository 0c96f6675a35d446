// The frame of the account pages (billing, API keys, rate limits, operator): a scrolling column with a heading, a
// one-line description and links to the sibling pages, as the usage page is laid out.
import Link from 'next/link';
import type { ReactNode } from 'react';

const SIBLINGS = [
  { href: '/billing', label: 'Billing' },
  { href: '/keys', label: 'API keys' },
  { href: '/limits', label: 'Rate limits' },
  { href: '/usage', label: 'Usage' },
  { href: '/alerts', label: 'Alerts' },
] as const;

export function DashPage({
  title,
  description,
  current,
  testId,
  children,
}: {
  title: string;
  description: string;
  current: string;
  testId: string;
  children: ReactNode;
}) {
  return (
    <div className="flex-1 overflow-y-auto" data-testid={testId}>
      <div className="mx-auto flex max-w-5xl flex-col gap-6 px-4 py-6 sm:px-6 sm:py-8">
        <header className="flex flex-col gap-2">
          <h1 className="text-2xl font-semibold tracking-tight">{title}</h1>
          <p className="text-sm text-muted-foreground">{description}</p>
          <nav aria-label="Account pages" className="flex flex-wrap gap-x-4 gap-y-1 text-sm">
            {SIBLINGS.filter((s) => s.href !== current).map((s) => (
              <Link key={s.href} href={s.href} className="font-medium text-primary underline-offset-4 hover:underline">
                {s.label}
              </Link>
            ))}
          </nav>
        </header>
        {children}
      </div>
    </div>
  );
}
