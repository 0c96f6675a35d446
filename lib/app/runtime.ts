// How the app's Next route handlers reach the one AppBackend the server process built. Next bundles its own copy of
// every module it imports, so module state cannot be shared by import: the server publishes the backend on
// globalThis under a registered symbol before Next starts, and route handlers read it here.
import type { AppBackend } from './backend.ts';

const KEY = Symbol.for('lagoon.app-backend');

export function publishAppBackend(backend: AppBackend | undefined): void {
  (globalThis as Record<symbol, unknown>)[KEY] = backend;
}

export function appBackend(): AppBackend {
  const b = (globalThis as Record<symbol, unknown>)[KEY] as AppBackend | undefined;
  if (!b) throw new Error('The Lagoon app backend is not running: start the app with `npm start` (scripts/serve.ts)');
  return b;
}
