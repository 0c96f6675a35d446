'use client';
// Client-side context for every page: the language (use-intl), TanStack Query (server state), the theme, toasts and
// the service worker's registration. A 401 from any request
// means the session ended: refetching /auth/me lets the session gate send the user to sign in.
import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { AppApiError, qk } from '@/components/api/client.ts';
import type { Catalogue } from '@/components/i18n/catalogue.ts';
import { I18nProvider } from '@/components/i18n/i18n-provider.tsx';
import type { AppLocale } from '@/components/i18n/locales.ts';
import { ServiceWorker } from '@/components/pwa/service-worker.tsx';
import { ThemeProvider } from '@/components/theme/theme-provider.tsx';
import { ToastProvider } from '@/components/ui/toast.tsx';

const isMeKey = (key: readonly unknown[]) => key.length === qk.me.length && key[0] === qk.me[0];

function makeClient(): QueryClient {
  const client: QueryClient = new QueryClient({
    queryCache: new QueryCache({
      onError: (err, query) => {
        if (err instanceof AppApiError && err.status === 401 && !isMeKey(query.queryKey)) void client.invalidateQueries({ queryKey: qk.me });
      },
    }),
    mutationCache: new MutationCache({
      onError: (err) => {
        if (err instanceof AppApiError && err.status === 401) void client.invalidateQueries({ queryKey: qk.me });
      },
    }),
    defaultOptions: {
      queries: {
        staleTime: 30_000,
        // Client errors (4xx) will not fix themselves; network and server errors get two more tries.
        retry: (count, err) => !(err instanceof AppApiError && err.status >= 400 && err.status < 500) && count < 2,
        refetchOnWindowFocus: false,
      },
    },
  });
  return client;
}

export function Providers({ locale, messages, children }: { locale: AppLocale; messages: Catalogue; children: ReactNode }) {
  const [client] = useState(makeClient);
  return (
    <I18nProvider locale={locale} messages={messages}>
      <QueryClientProvider client={client}>
        <ThemeProvider>
          <ToastProvider>
            <ServiceWorker />
            {children}
          </ToastProvider>
        </ThemeProvider>
      </QueryClientProvider>
    </I18nProvider>
  );
}
