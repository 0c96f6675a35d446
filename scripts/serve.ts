#!/usr/bin/env node
// Starts Lagoon: the API layer and the browser app (Next.js) in one process on one port (PORT, HOST).
// LAGOON_NO_APP=1 serves the API alone (tests, benchmarks, headless deployments).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AppBackend } from '../lib/app/backend.ts';
import { stampClientIp } from '../lib/app/routes/client-ip.ts';
import { publishAppBackend } from '../lib/app/runtime.ts';
import { loadConfig } from '../lib/config.ts';
import { createHttpServer, type FallbackHandler } from '../lib/http/server.ts';
import { createService } from '../lib/service.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const config = loadConfig();
const svc = await createService(config);

let fallback: FallbackHandler | undefined;
let backend: AppBackend | undefined;
if (process.env.LAGOON_NO_APP !== '1') {
  // The app's route handlers reach this process's backend through globalThis, so it is published before Next starts.
  const { createAppBackend } = await import('../lib/app/backend.ts');
  backend = createAppBackend(svc);
  publishAppBackend(backend);
  const { default: next } = await import('next');
  const app = next({ dev: config.dev, dir: root, hostname: config.host, port: config.port });
  await app.prepare();
  const handle = app.getRequestHandler();
  fallback = (req, res) => {
    stampClientIp(req);
    return handle(req, res);
  };
}

// Warm the default model's engine so the first chat does not pay for loading it.
const warm = svc.catalogue.models.find((m) => m.traits.includes('default'));
if (warm) svc.engines.get(warm).catch((e) => console.error(`could not start the engine of ${warm.id}:`, e));

const { server, inFlight } = createHttpServer(svc, fallback);
server.listen(config.port, config.host, () => {
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : config.port;
  console.log(`lagoon listening on http://${config.host}:${port} (store: ${svc.store.kind}, data: ${config.dataDir})`);
});

let stopping = false;
async function stop(signal: string) {
  if (stopping) return;
  stopping = true;
  console.log(`${signal}: stopping; waiting for ${inFlight()} in-flight request(s)`);
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
process.on('SIGINT', () => void stop('SIGINT'));
