// Small display formatters shared by the chat rows and the composer; numbers and money in `locale`, the app's
// language (components/i18n/format.ts).
import { formats } from '../i18n/format.ts';

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(n < 10 * 1024 ? 1 : 0)} KB`;
  return `${(n / (1024 * 1024)).toFixed(n < 10 * 1024 * 1024 ? 1 : 0)} MB`;
}

export const formatCount = (n: number, locale: string): string => formats(locale).count(n);

/** Enough decimals that small per-message amounts keep two significant digits instead of showing as 0. */
function smallAmount(n: number, locale: string, opts: Intl.NumberFormatOptions = {}): string {
  const decimals = n === 0 || n >= 0.01 ? (n >= 100 ? 2 : 4) : Math.min(12, 1 - Math.floor(Math.log10(n)));
  // No trailing zeros: "0.05", not "0.0500".
  return formats(locale).number(n, { ...opts, minimumFractionDigits: 0, maximumFractionDigits: decimals });
}

export const formatUsd = (n: number, locale: string): string => smallAmount(n, locale, { style: 'currency', currency: 'USD' });
export const formatDiem = (n: number, locale: string): string => `${smallAmount(n, locale)} DIEM`;

/** What one answer or image was charged, in the unit(s) it was charged in: "0.0592 DIEM", "$0.0012 + 0.05 DIEM". */
export function formatCharge(usd: number, diem: number, locale: string): string {
  return [usd > 0 || diem === 0 ? formatUsd(usd, locale) : null, diem > 0 ? formatDiem(diem, locale) : null].filter(Boolean).join(' + ');
}

/** Price per million tokens, e.g. "$0.15", "$2" (undefined when free: the caller says so in words). */
export function formatPrice(perMillion: number, locale: string): string | undefined {
  if (perMillion === 0) return undefined;
  const usd = { style: 'currency', currency: 'USD' } as const;
  if (perMillion < 0.1) return formats(locale).number(perMillion, { ...usd, maximumSignificantDigits: 2 });
  const whole = Math.round(perMillion * 100) % 100 === 0;
  return formats(locale).number(perMillion, { ...usd, minimumFractionDigits: whole ? 0 : 2, maximumFractionDigits: whole ? 0 : 2 });
}

export function hostnameOf(url: string): string {
  try {
    return new URL(url).hostname.replace(/^www\./, '');
  } catch {
    return url;
  }
}

/** A date string from a source, in the app's language (`locale`), shown as written when it does not parse. */
export function formatSourceDate(date: string, locale?: string): string {
  const t = Date.parse(date);
  if (Number.isNaN(t)) return date;
  return new Date(t).toLocaleDateString(locale, { year: 'numeric', month: 'short', day: 'numeric' });
}

/**
 * A file name safe to show: path parts, control characters and bidi overrides removed (they can disguise
 * "photo‮gpj.exe" as "photoexe.jpg"), long names shortened in the middle. Rendered as text, never as HTML.
 */
export function displayFileName(name: string, max = 48): string {
  const base = name.split(/[\\/]/).pop() ?? '';
  const clean = base.replace(/[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, '').trim() || 'file';
  if (clean.length <= max) return clean;
  const keep = max - 1;
  return `${clean.slice(0, Math.ceil(keep * 0.6))}…${clean.slice(clean.length - Math.floor(keep * 0.4))}`;
}
