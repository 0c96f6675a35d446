// Small display formatters shared by the chat rows and the composer.

const nf = new Intl.NumberFormat('en-US');

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(n < 10 * 1024 ? 1 : 0)} KB`;
  return `${(n / (1024 * 1024)).toFixed(n < 10 * 1024 * 1024 ? 1 : 0)} MB`;
}

export const formatCount = (n: number): string => nf.format(n);

/** Enough decimals that small per-message amounts keep two significant digits instead of showing as 0. */
function smallAmount(n: number): string {
  if (n === 0) return '0';
  const decimals = n >= 0.01 ? (n >= 100 ? 2 : 4) : Math.min(12, 1 - Math.floor(Math.log10(n)));
  return n
    .toFixed(decimals)
    .replace(/(\.\d*?)0+$/, '$1')
    .replace(/\.$/, '');
}

export const formatUsd = (n: number): string => `$${smallAmount(n)}`;
export const formatDiem = (n: number): string => `${smallAmount(n)} DIEM`;

/** What one answer or image was charged, in the unit(s) it was charged in: "0.0592 DIEM", "$0.0012 + 0.05 DIEM". */
export function formatCharge(usd: number, diem: number): string {
  return [usd > 0 || diem === 0 ? formatUsd(usd) : null, diem > 0 ? formatDiem(diem) : null].filter(Boolean).join(' + ');
}

/** Price per million tokens, e.g. "$0.15". */
export function formatPrice(perMillion: number): string {
  if (perMillion === 0) return 'free';
  return `$${perMillion < 0.1 ? perMillion.toPrecision(2) : perMillion.toFixed(2).replace(/\.00$/, '')}`;
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
