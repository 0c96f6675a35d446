// Numbers as the usage dashboard shows them: grouped counts, compact counts for the summary cards, UTC day labels
// (the ledger buckets by UTC day), and spend in USD plus DIEM.
import { formatDiem as diemBalance, formatUsd as usdBalance } from '@/components/account/format-balance.ts';

// A chat answer costs fractions of a cent: below one cent, two significant digits ("$0.000034") rather than a
// rounded "$0.00" that would say it was free.
const tinyUsd = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', maximumSignificantDigits: 2 });
const tinyDiem = new Intl.NumberFormat('en-US', { maximumSignificantDigits: 2 });

export const formatUsd = (v: number): string => (v > 0 && v < 0.01 ? tinyUsd.format(v) : usdBalance(v));
export const formatDiem = (v: number): string => (v > 0 && v < 0.0001 ? tinyDiem.format(v) : diemBalance(v));

const grouped = new Intl.NumberFormat('en-US');
const compact = new Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 1 });

export const formatCount = (n: number): string => grouped.format(n);

/** "12.3K" on the cards, with the exact figure kept for the title/screen reader where it differs. */
export const formatCompact = (n: number): string => (n < 10_000 ? grouped.format(n) : compact.format(n));

/** "Mar 4" for a YYYY-MM-DD UTC day. */
export function formatDay(date: string, opts: Intl.DateTimeFormatOptions = { month: 'short', day: 'numeric' }): string {
  const d = new Date(`${date}T00:00:00Z`);
  return Number.isNaN(d.getTime()) ? date : d.toLocaleDateString('en-US', { ...opts, timeZone: 'UTC' });
}

/** "Mar 4, 14:03" in the reader's own time zone, in `locale` (the app's language) or the browser's. */
export function formatWhen(ms: number, locale?: string): string {
  return new Date(ms).toLocaleString(locale, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });
}

/** Spend as one string: "$0.0123", "0.5 DIEM", or both; "$0.00" when nothing was spent. */
export function formatSpend(usd: number, diem: number): string {
  if (usd > 0 && diem > 0) return `${formatUsd(usd)} + ${formatDiem(diem)} DIEM`;
  if (diem > 0) return `${formatDiem(diem)} DIEM`;
  return formatUsd(usd);
}

const UNIT_NAMES: Record<string, [string, string]> = {
  rpc_credit: ['RPC credit', 'RPC credits'],
  image: ['image', 'images'],
  character: ['character', 'characters'],
  second: ['second', 'seconds'],
  call: ['call', 'calls'],
};

/** "1,250 RPC credits" for usage billed in another unit than tokens (undefined for tokens). */
export function formatUnits(unit: string | undefined, quantity: number | undefined): string | undefined {
  if (!unit || unit === 'token') return undefined;
  const [one, many] = UNIT_NAMES[unit] ?? [unit, unit];
  return `${formatCount(quantity ?? 0)} ${quantity === 1 ? one : many}`;
}

/** A JSON-RPC call's methods in a few words: "eth_call ×3, eth_getBalance" (the most used first, at most `max`). */
export function formatRpcMethods(methods: { method: string; calls: number }[], max = 3): string {
  const sorted = [...methods].sort((a, b) => b.calls - a.calls);
  const shown = sorted.slice(0, max).map((m) => (m.calls > 1 ? `${m.method} ×${m.calls}` : m.method));
  return sorted.length > max ? `${shown.join(', ')} +${sorted.length - max} more` : shown.join(', ');
}
