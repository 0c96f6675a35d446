#!/usr/bin/env node
// Starts Lagoon: the API layer (/api/v1 and the app's /api/app) and the browser app's pages (Next.js) in one process
// on one port (PORT, HOST).
// LAGOON_NO_APP=1 serves the API alone (tests, benchmarks, headless deployments).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AppBackend } from '../lib/http/app-backend.ts';
import { loadConfig } from '../lib/config.ts';
import { createHttpServer, type FallbackHandler } from '../lib/http/server.ts';
import { log } from '../lib/log.ts';
import { operatorExists, operatorSetupToken, setupLink } from '../lib/users/operator-setup.ts';
import { CatalogueError } from '../lib/models/catalogue-error.ts';
import { createService } from '../lib/service.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const config = loadConfig();
const svc = await createService(config).catch((e) => {
  // A bad catalogue is the operator's to fix: one paragraph naming the file and the field, not a stack trace.
  if (!(e instanceof CatalogueError)) throw e;
  console.error(`lagoon: ${e.message}`);
  process.exit(1);
});

let pages: FallbackHandler | undefined;
let backend: AppBackend | undefined;
if (config.app.enabled) {
  // The app's API is served by the lean layer (one module graph); Next serves only the pages and static assets.
  const { createAppBackend } = await import('../lib/http/app-backend.ts');
  backend = createAppBackend(svc);
  const { default: next } = await import('next');
  const app = next({ dev: config.dev, dir: root, hostname: config.host, port: config.port });
  await app.prepare();
  pages = app.getRequestHandler();
}

// Warm the default model's engine so the first chat does not pay for loading it.
const warm = svc.catalogue.models.find((m) => m.type === 'text' && m.traits.includes('default'));
if (warm && svc.engineHealth.status(warm.id)?.ok !== false) svc.engines.get(warm).catch((e) => console.error(`could not start the engine of ${warm.id}:`, e));

const { server, inFlight } = createHttpServer(svc, { app: backend, pages, trustProxy: config.app.trustProxy });
server.listen(config.port, config.host, () => {
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : config.port;
  console.log(`lagoon listening on http://${config.host}:${port} (store: ${svc.store.kind}, data: ${config.dataDir})`);
  if (config.app.enabled) void announceOperatorSetup(`http://${config.host === '0.0.0.0' ? 'localhost' : config.host}:${port}`);
});

/** While no operator exists, the link that makes a sign-up the operator (its token only when the server made it). */
async function announceOperatorSetup(localOrigin: string): Promise<void> {
  try {
    if (await operatorExists(svc.store)) return;
    const origin = config.wallet.publicOrigin.endsWith(':0') ? localOrigin : config.wallet.publicOrigin;
    const line = config.app.operatorToken
      ? `no operator yet: sign up at ${origin}/sign-up?setup=<LAGOON_OPERATOR_TOKEN> to become it`
      : `no operator yet: sign up at ${setupLink(origin, await operatorSetupToken(svc.store, undefined))} to become it`;
    console.log(`lagoon: ${line}`);
  } catch (e) {
    log.error({ err: e }, 'could not tell the operator setup link');
  }
}

let stopping = false;
async function stop(signal: string) {
  if (stopping) return;
  stopping = true;
  console.log(`${signal}: stopping; waiting for ${inFlight()} in-flight request(s)`);
  // A stop never hangs: should closing the backend or the store wedge, the process still ends, 30 s after the drain.
  setTimeout(() => {
    console.error(`${signal}: the stop did not finish in 60 s; exiting`);
    process.exit(1);
  }, 60_000).unref();
  server.close();
  server.closeIdleConnections();
  const deadline = Date.now() + 30_000;
  while (inFlight() > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  // Live chat generations stop and keep what they produced, while their streams can still tell the browsers so;
  // then the remaining connections close, the ledger drains and the store closes.
  await backend?.close().catch((e) => console.error('stopping the app backend failed:', e));
  server.closeAllConnections();
  await svc.close();
  process.exit(0);
}
process.on('SIGTERM', () => void stop('SIGTERM'));
// A promise nobody awaited that rejects (background bookkeeping, a cancelled upstream read) is logged, not fatal:
// request handlers end under lib/http/guard.ts, and no rejection left over from a request may stop the server.
process.on('unhandledRejection', (reason) => log.error({ err: reason }, 'unhandled rejection'));
process.on('SIGINT', () => void stop('SIGINT'));
