// The languages the app speaks, and how one is chosen for a request: the saved choice (a cookie set from the account
// page) when there is one, else the browser's Accept-Language, else English. Pure, so the server (app/layout.tsx)
// and the unit tests share it.
export const LOCALES = ['en', 'de'] as const;
export type AppLocale = (typeof LOCALES)[number];
export const DEFAULT_LOCALE: AppLocale = 'en';

/** Each language's name in itself, for the picker. */
export const LOCALE_NAMES: Record<AppLocale, string> = { en: 'English', de: 'Deutsch' };

/** The cookie that remembers a chosen language (absent: follow the browser). */
export const LOCALE_COOKIE = 'lagoon-locale';
/** A year, renewed whenever the choice is made again. */
export const LOCALE_COOKIE_MAX_AGE = 365 * 24 * 60 * 60;

export const isLocale = (v: unknown): v is AppLocale => typeof v === 'string' && (LOCALES as readonly string[]).includes(v);

/** The supported language an Accept-Language header prefers most (by q, then order), or undefined. */
export function fromAcceptLanguage(header: string | null | undefined): AppLocale | undefined {
  if (!header) return undefined;
  const ranked = header
    .split(',')
    .map((part, i) => {
      const [tag, ...params] = part.trim().split(';');
      const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
      const weight = q ? Number(q.slice(2)) : 1;
      return { tag: tag.trim().toLowerCase(), weight: Number.isFinite(weight) ? weight : 0, i };
    })
    .filter((r) => r.tag && r.weight > 0)
    .sort((a, b) => b.weight - a.weight || a.i - b.i);
  for (const { tag } of ranked) {
    const base = tag.split('-')[0];
    if (isLocale(base)) return base;
  }
  return undefined;
}

/** The language of a request: the saved choice, else the browser's, else English. */
export function pickLocale(cookie: string | null | undefined, acceptLanguage: string | null | undefined): AppLocale {
  if (isLocale(cookie)) return cookie;
  return fromAcceptLanguage(acceptLanguage) ?? DEFAULT_LOCALE;
}
