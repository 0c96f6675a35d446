// Dates, times and numbers in the app's language: every page formats through these, bound to the active locale
// (use-intl's), so a German reader sees "4. März" and "1.234,50 $" where an English one sees "Mar 4" and "$1,234.50".
// Money keeps its unit (USD, DIEM) and its precision rules in every language; only separators and order follow the
// locale. Times are in the reader's own zone (the browser's); ledger days are UTC days, so they are shown in UTC.
import { useMemo } from 'react';
import { useLocale } from 'use-intl';

type When = number | string | Date;

// Building an Intl formatter costs far more than using one: one per locale and options, kept.
const numberFormats = new Map<string, Intl.NumberFormat>();
function numberFormat(locale: string, opts: Intl.NumberFormatOptions): Intl.NumberFormat {
  const key = `${locale}|${JSON.stringify(opts)}`;
  let f = numberFormats.get(key);
  if (!f) numberFormats.set(key, (f = new Intl.NumberFormat(locale, opts)));
  return f;
}

export interface Formats {
  locale: string;
  /** Any number, with the given Intl options. */
  number(n: number, opts?: Intl.NumberFormatOptions): string;
  /** A grouped count: "1,234" / "1.234". */
  count(n: number): string;
  /** "12.3K" / "12.300" on summary cards (counts under 10,000 in full). */
  compact(n: number): string;
  /** Spend in USD: cents, four places under a dollar, two significant digits under a cent (never a "free" $0.00). */
  usd(v: number): string;
  /** Spend in DIEM (no unit): up to four places, two significant digits below 0.0001. */
  diem(v: number): string;
  /** A balance in USD: cents, four places under a dollar. */
  usdBalance(v: number): string;
  /** A balance in DIEM (no unit): up to four places. */
  diemBalance(v: number): string;
  /** Spend in one string: "$0.0123", "0.5 DIEM", or both; "$0.00" when nothing was spent. */
  spend(usd: number, diem: number): string;
  /** A YYYY-MM-DD UTC day: "Mar 4" / "4. März" (the string itself when it does not parse). */
  day(date: string, opts?: Intl.DateTimeFormatOptions): string;
  /** A date in the reader's zone: "Mar 4, 2026" by default. */
  date(t: When, opts?: Intl.DateTimeFormatOptions): string;
  /** A date and time in the reader's zone (the locale's full default without options). */
  dateTime(t: When, opts?: Intl.DateTimeFormatOptions): string;
  /** "Mar 4, 14:03": a recent moment, short. */
  when(t: When): string;
  /** A time of day in the reader's zone: "14:03" / "02:03 PM". */
  time(t: When, opts?: Intl.DateTimeFormatOptions): string;
}

const asDate = (t: When) => (t instanceof Date ? t : new Date(t));

export function formats(locale: string): Formats {
  const number = (n: number, opts: Intl.NumberFormatOptions = {}) => numberFormat(locale, opts).format(n);
  const usdBalance = (v: number) => {
    const small = Math.abs(v) > 0 && Math.abs(v) < 1;
    return number(v, { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: small ? 4 : 2 });
  };
  const diemBalance = (v: number) => number(v, { minimumFractionDigits: 0, maximumFractionDigits: 4 });
  const usd = (v: number) => (v > 0 && v < 0.01 ? number(v, { style: 'currency', currency: 'USD', maximumSignificantDigits: 2 }) : usdBalance(v));
  const diem = (v: number) => (v > 0 && v < 0.0001 ? number(v, { maximumSignificantDigits: 2 }) : diemBalance(v));
  return {
    locale,
    number,
    count: (n) => number(n),
    compact: (n) => (n < 10_000 ? number(n) : number(n, { notation: 'compact', maximumFractionDigits: 1 })),
    usd,
    diem,
    usdBalance,
    diemBalance,
    spend(u, d) {
      if (u > 0 && d > 0) return `${usd(u)} + ${diem(d)} DIEM`;
      if (d > 0) return `${diem(d)} DIEM`;
      return usd(u);
    },
    day(date, opts = { month: 'short', day: 'numeric' }) {
      const d = new Date(`${date}T00:00:00Z`);
      return Number.isNaN(d.getTime()) ? date : d.toLocaleDateString(locale, { ...opts, timeZone: 'UTC' });
    },
    date: (t, opts = { year: 'numeric', month: 'short', day: 'numeric' }) => asDate(t).toLocaleDateString(locale, opts),
    dateTime: (t, opts) => asDate(t).toLocaleString(locale, opts),
    when: (t) => asDate(t).toLocaleString(locale, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' }),
    time: (t, opts = { hour: '2-digit', minute: '2-digit' }) => asDate(t).toLocaleTimeString(locale, opts),
  };
}

/** The formatters in the page's language (use-intl's locale). */
export function useFormat(): Formats {
  const locale = useLocale();
  return useMemo(() => formats(locale), [locale]);
}
