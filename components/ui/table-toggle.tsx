'use client';
// A chart's figures as a table: always in the accessibility tree, shown on demand to everyone else by a "Show as a
// table" toggle. When shown, the table scrolls in its own box: keyboard-reachable and named, like the other tables.
import { type ReactNode, useId, useState } from 'react';
import { useTranslations } from 'use-intl';
import { cn } from '@/components/ui/cn.ts';

export function TableToggle({ label, children }: { label: string; children: ReactNode }) {
  const t = useTranslations('common');
  const [shown, setShown] = useState(false);
  const tableId = useId();
  return (
    <div>
      <button
        type="button"
        className="text-sm font-medium text-primary underline-offset-4 hover:underline"
        aria-expanded={shown}
        aria-controls={tableId}
        onClick={() => setShown((s) => !s)}
      >
        {shown ? t('hideTable') : t('showTable')}
      </button>
      <div
        id={tableId}
        className={cn(shown ? 'mt-3 max-h-80 overflow-auto' : 'sr-only')}
        {...(shown ? { role: 'region', 'aria-label': label, tabIndex: 0 } : {})}
      >
        {children}
      </div>
    </div>
  );
}
