// Lagoon's service worker: makes the app installable and, offline, answers a page load with the app's offline frame
// (public/offline.html) instead of the browser's error page. It caches only that shell: the offline page, its
// stylesheet, the icons and the manifest, none of which carries anything of an account. It never touches /api/
// (the APIs, every account's data), other methods than GET, other origins, or Next's pages and data when online:
// pages go to the network first and only a failed load falls back to the shell.
//
// Bump VERSION whenever a file in SHELL changes: the new worker caches the new shell, and on activation deletes
// every cache of an older version.
const VERSION = 'lagoon-shell-v1';
const OFFLINE_PAGE = '/offline.html';
const SHELL = [OFFLINE_PAGE, '/offline.css', '/icon.svg', '/icons/icon-192.png', '/manifest.webmanifest'];

self.addEventListener('install', (event) => {
  // cache: 'reload' skips the HTTP cache, so a new version caches the files as the server has them now.
  event.waitUntil(
    caches
      .open(VERSION)
      .then((cache) => cache.addAll(SHELL.map((url) => new Request(url, { cache: 'reload' }))))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((names) => Promise.all(names.filter((name) => name.startsWith('lagoon-shell-') && name !== VERSION).map((name) => caches.delete(name))))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET') return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin || url.pathname.startsWith('/api/')) return;
  if (request.mode === 'navigate') {
    // The network answers every page; the cached shell only when there is no network at all.
    event.respondWith(
      fetch(request).catch(() =>
        caches
          .open(VERSION)
          .then((cache) => cache.match(OFFLINE_PAGE))
          .then((r) => r ?? Response.error()),
      ),
    );
    return;
  }
  if (SHELL.includes(url.pathname)) {
    event.respondWith(
      fetch(request).catch(() =>
        caches
          .open(VERSION)
          .then((cache) => cache.match(url.pathname))
          .then((r) => r ?? Response.error()),
      ),
    );
  }
});
