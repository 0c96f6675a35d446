// A wide table in a frame that scrolls sideways on narrow screens; the scrolling region is keyboard-reachable and
// named (so keyboard users can scroll it too). DataTable adds the usual table inside: a caption for screen readers
// and a row of column headings (numeric columns right-aligned), the rows being the children.
import type { ReactNode } from 'react';
import { cn } from '@/components/ui/cn.ts';

export function TableFrame({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div role="region" aria-label={label} tabIndex={0} className="overflow-x-auto rounded-xl border border-border bg-card">
      {children}
    </div>
  );
}

export const TH = 'px-3 py-2 font-medium whitespace-nowrap';
export const TD = 'px-3 py-2 whitespace-nowrap';

/** A column heading; `numeric` right-aligns it (its cells are aligned by the rows). */
export interface Column {
  label: string;
  numeric?: boolean;
}

export function DataTable({
  label,
  caption,
  columns,
  className,
  testId,
  children,
}: {
  /** The scrolling region's name. */
  label: string;
  caption: string;
  /** `false` leaves a column out (e.g. one shown only sometimes). */
  columns: readonly (Column | false)[];
  /** Classes added to the table's own (`w-full text-sm`). */
  className?: string;
  testId?: string;
  /** The body's rows. */
  children: ReactNode;
}) {
  return (
    <TableFrame label={label}>
      <table className={cn('w-full text-sm', className)} data-testid={testId}>
        <caption className="sr-only">{caption}</caption>
        <thead className="bg-muted text-left text-muted-foreground">
          <tr>
            {columns.map(
              (c) =>
                c && (
                  <th key={c.label} scope="col" className={c.numeric ? `${TH} text-right` : TH}>
                    {c.label}
                  </th>
                ),
            )}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </TableFrame>
  );
}
