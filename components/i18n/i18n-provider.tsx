'use client';
// The request's language and catalogue for every client component (use-intl's provider), and switching language:
// the choice is saved in a cookie and the page re-rendered by the server in the new language (router.refresh), so
// the server and the browser never disagree. "auto" forgets the choice: the browser's Accept-Language decides again.
import { useRouter } from 'next/navigation';
import { type ReactNode, useCallback } from 'react';
import { IntlProvider } from 'use-intl';
import { setClientWords } from '@/components/api/client.ts';
import type { Catalogue } from '@/components/i18n/catalogue.ts';
import { type AppLocale, LOCALE_COOKIE, LOCALE_COOKIE_MAX_AGE } from '@/components/i18n/locales.ts';

export function I18nProvider({ locale, messages, children }: { locale: AppLocale; messages: Catalogue; children: ReactNode }) {
  // The fetch wrapper's own failures (no answer, no error body) in this language; set while rendering, so before any
  // child's request.
  setClientWords(messages.apiClient);
  return (
    // No time zone formatting goes through use-intl (dates use the browser's own), so no zone is configured here.
    <IntlProvider locale={locale} messages={messages} timeZone="UTC">
      {children}
    </IntlProvider>
  );
}

/** The saved language choice from document.cookie: a locale, or 'auto' when none is saved. */
export function savedLocaleChoice(): AppLocale | 'auto' {
  if (typeof document === 'undefined') return 'auto';
  const m = document.cookie.match(new RegExp(`(?:^|; )${LOCALE_COOKIE}=([^;]*)`));
  return m && (m[1] === 'en' || m[1] === 'de') ? m[1] : 'auto';
}

/** Saves (or forgets, with 'auto') the language and re-renders the page in it. */
export function useSetLocale(): (choice: AppLocale | 'auto') => void {
  const router = useRouter();
  return useCallback(
    (choice) => {
      const secure = location.protocol === 'https:' ? '; Secure' : '';
      // biome-ignore lint/suspicious/noDocumentCookie: the server reads this cookie (the Cookie Store API is not in every browser)
      document.cookie =
        choice === 'auto'
          ? `${LOCALE_COOKIE}=; Path=/; Max-Age=0; SameSite=Lax${secure}`
          : `${LOCALE_COOKIE}=${choice}; Path=/; Max-Age=${LOCALE_COOKIE_MAX_AGE}; SameSite=Lax${secure}`;
      router.refresh();
    },
    [router],
  );
}
