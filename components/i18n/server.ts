// The server side of the translations: the request's language (cookie, then Accept-Language) and its catalogue, for
// the root layout and for page titles (`titleMetadata`). Server components only (it reads the request's headers).
import type { Metadata } from 'next';
import { cookies, headers } from 'next/headers';
import { createTranslator } from 'use-intl/core';
import { type AppLocale, LOCALE_COOKIE, pickLocale } from '@/components/i18n/locales.ts';
import { catalogue, type Catalogue } from '@/components/i18n/catalogue.ts';

export async function requestLocale(): Promise<AppLocale> {
  const [c, h] = await Promise.all([cookies(), headers()]);
  return pickLocale(c.get(LOCALE_COOKIE)?.value, h.get('accept-language'));
}

type TitleKey = keyof Catalogue['titles'];

/** The `titles` messages in the request's language. */
async function titles() {
  const locale = await requestLocale();
  return createTranslator({ locale, messages: catalogue(locale), namespace: 'titles' });
}

/** A page's `generateMetadata`: its title from the catalogue's `titles` in the request's language (and `more`). */
export function titleMetadata(key: TitleKey, more: Metadata = {}): () => Promise<Metadata> {
  return async () => ({ ...more, title: (await titles())(key) });
}

/** The app's description, in the request's language (the root layout's metadata). */
export async function appDescription(): Promise<string> {
  return (await titles())('appDescription');
}
