#!/usr/bin/env node
// The E2EE worker process. The gateway starts it as a child (lib/e2ee/worker-link.ts) in the embedded default; on a
// TEE host an operator runs it alone (`node lib/e2ee/worker/main.ts`) and points the gateway at it with
// LAGOON_E2EE_WORKER_URL. It reads the same catalogue as the gateway and serves only its E2EE models, with engines of
// its own: what it decrypts never leaves this process except to the model's engine. Prints `{"port":N}` once it
// listens; stops on SIGTERM, SIGINT, or when the gateway that started it goes away.
import { loadConfig } from '../../config.ts';
import { DEFAULT_CATALOGUE, loadCatalogue } from '../../models/catalogue.ts';
import { EngineRegistry } from '../../engines/text/registry.ts';
import { log } from '../../log.ts';
import { WorkerKeys } from './keys.ts';
import { createWorkerServer } from './server.ts';

const config = loadConfig();
const token = config.e2ee.workerToken;
if (!token || token.length < 32) {
  log.error('LAGOON_E2EE_WORKER_TOKEN must be set (at least 32 characters): the gateway authenticates with it');
  process.exit(2);
}
const catalogue = loadCatalogue(config.modelsFile ?? DEFAULT_CATALOGUE, config.catalogueVar, config.modelsExtra);
const models = new Map(catalogue.models.filter((m) => m.type === 'text' && m.capabilities.e2ee).map((m) => [m.id, m]));
const engines = new EngineRegistry(config.catalogueVar);
const keys = new WorkerKeys({ rotateMs: config.e2ee.rotateMs });

const server = createWorkerServer({
  token,
  keys,
  maxBodyBytes: config.maxBodyBytes,
  model: (id) => models.get(id),
  engine: (m) => engines.get(m),
});
server.listen(config.e2ee.workerPort, config.e2ee.workerHost, () => {
  const address = server.address();
  process.stdout.write(`${JSON.stringify({ port: typeof address === 'object' && address ? address.port : 0, models: [...models.keys()] })}\n`);
});

let stopping = false;
async function stop() {
  if (stopping) return;
  stopping = true;
  server.close();
  server.closeAllConnections();
  await engines.close().catch(() => undefined);
  process.exit(0);
}
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
// Started by a gateway (an IPC channel): its end ends the worker, so no key outlives the server that used it.
if (process.connected) process.on('disconnect', stop);
