// A titled section holding a wide table: it scrolls sideways on narrow screens, and the scrolling region is
// keyboard-reachable and named (so keyboard users can scroll it too).
import type { ReactNode } from 'react';

export function TableFrame({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div role="region" aria-label={label} tabIndex={0} className="overflow-x-auto rounded-xl border border-border bg-card">
      {children}
    </div>
  );
}

export const TH = 'px-3 py-2 font-medium whitespace-nowrap';
export const TD = 'px-3 py-2 whitespace-nowrap';
