// Sidebar sections by last activity, in the user's local calendar: Today, Yesterday, Previous 7 days, Older.
import type { AppConversation } from '@/lib/wire.ts';

export const DATE_GROUPS = ['Today', 'Yesterday', 'Previous 7 days', 'Older'] as const;
export type DateGroup = (typeof DATE_GROUPS)[number];

function dayStart(now: number, daysBack: number): number {
  const d = new Date(now);
  d.setHours(0, 0, 0, 0);
  d.setDate(d.getDate() - daysBack); // setDate, not − 86,400,000 ms: days around DST changes are 23 or 25 h long
  return d.getTime();
}

export function dateGroupOf(at: number, now: number): DateGroup {
  if (at >= dayStart(now, 0)) return 'Today';
  if (at >= dayStart(now, 1)) return 'Yesterday';
  if (at >= dayStart(now, 7)) return 'Previous 7 days';
  return 'Older';
}

/** Non-empty groups in display order; conversations keep their order (newest first) within a group. */
export function groupByDate(items: AppConversation[], now: number): Array<{ group: DateGroup; items: AppConversation[] }> {
  const by = new Map<DateGroup, AppConversation[]>();
  for (const c of items) {
    const g = dateGroupOf(c.updatedAt, now);
    const list = by.get(g);
    if (list) list.push(c);
    else by.set(g, [c]);
  }
  return DATE_GROUPS.filter((g) => by.has(g)).map((g) => ({ group: g, items: by.get(g)! }));
}
