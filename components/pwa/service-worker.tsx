'use client';
// Registers the service worker (public/sw.js: the installable app's offline shell) once the page has loaded, and
// shows a notice while the browser is offline. Renders nothing else. The worker holds only public/'s offline page and
// icons, never Next's build files, so `next dev` registers it too.
// data-testid: offline-notice.
import { useSyncExternalStore } from 'react';
import { useEffect } from 'react';
import { useTranslations } from 'use-intl';

const subscribe = (onChange: () => void) => {
  window.addEventListener('online', onChange);
  window.addEventListener('offline', onChange);
  return () => {
    window.removeEventListener('online', onChange);
    window.removeEventListener('offline', onChange);
  };
};

export function ServiceWorker() {
  const t = useTranslations('offline');
  const online = useSyncExternalStore(
    subscribe,
    () => navigator.onLine,
    () => true,
  );
  useEffect(() => {
    if (!('serviceWorker' in navigator)) return;
    navigator.serviceWorker.register('/sw.js', { scope: '/' }).catch(() => {
      // No worker (a private window, a browser setting): the app works as before, without an offline frame.
    });
  }, []);
  if (online) return null;
  return (
    <div
      role="status"
      className="fixed inset-x-0 bottom-3 z-[80] mx-auto w-fit rounded-lg bg-foreground px-3 py-1.5 text-sm text-background shadow-lg"
      data-testid="offline-notice"
    >
      {t('notice')}
    </div>
  );
}
