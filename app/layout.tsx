import type { Metadata, Viewport } from 'next';
import { headers } from 'next/headers';
import type { ReactNode } from 'react';
import { catalogue } from '@/components/i18n/catalogue.ts';
import { appDescription, requestLocale } from '@/components/i18n/server.ts';
import { Providers } from '@/components/providers.tsx';
import { THEME_SCRIPT } from '@/components/theme/theme-script.ts';
import './globals.css';

export const generateMetadata = async (): Promise<Metadata> => ({
  title: { default: 'Lagoon', template: '%s · Lagoon' },
  description: await appDescription(),
  applicationName: 'Lagoon',
  // The web app manifest (public/manifest.webmanifest): installable, with its icons and theme colours.
  manifest: '/manifest.webmanifest',
  icons: { icon: '/icon.svg', apple: '/icons/apple-touch-icon.png' },
  appleWebApp: { capable: true, title: 'Lagoon', statusBarStyle: 'default' },
});

// No maximum-scale: pinch zoom stays available (accessibility); inputs are 16 px so focusing one does not zoom.
// resizes-content keeps the composer above the on-screen keyboard on Android.
export const viewport: Viewport = {
  width: 'device-width',
  initialScale: 1,
  viewportFit: 'cover',
  interactiveWidget: 'resizes-content',
  themeColor: [
    { media: '(prefers-color-scheme: light)', color: '#ffffff' },
    { media: '(prefers-color-scheme: dark)', color: '#0c0c0e' },
  ],
};

export default async function RootLayout({ children }: { children: ReactNode }) {
  // The request's CSP nonce (lib/http/security-headers.ts). Reading the headers also renders every page per request,
  // which a nonce needs: a page prerendered at build time could carry none.
  const nonce = (await headers()).get('x-nonce') ?? undefined;
  // The language: the saved choice (cookie), else the browser's Accept-Language (components/i18n/locales.ts).
  const locale = await requestLocale();
  return (
    // The theme script sets the class before React hydrates, hence suppressHydrationWarning on <html> only.
    <html lang={locale} suppressHydrationWarning>
      <head>
        {/* The app's only inline script: a constant that applies the saved theme before first paint (nonce: the CSP). */}
        {/* biome-ignore lint/security/noDangerouslySetInnerHtml: THEME_SCRIPT is a constant of ours, no user input */}
        <script nonce={nonce} dangerouslySetInnerHTML={{ __html: THEME_SCRIPT }} />
      </head>
      <body>
        <Providers locale={locale} messages={catalogue(locale)}>
          {children}
        </Providers>
      </body>
    </html>
  );
}
