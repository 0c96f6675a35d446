#!/usr/bin/env node
// Lagoon for the benchmark's app phase: the API layer with the browser app's `/api/app` (the lean backend that serves
// it in production, lib/http/app-backend.ts) but not Next's pages, which the phase never asks for. It makes one
// signed-in user with credit and an inference key on that user's account, and prints them with the address:
//   node scripts/bench/app-server.ts   (PORT, HOST, LAGOON_DATA_DIR, LAGOON_MODELS … as scripts/serve.ts)
//   → `bench app on http://… {"cookie":…,"csrf":…,"key":…}`
import { createKeyFrom } from '../../lib/auth/key-input.ts';
import { grantUsd } from '../../lib/billing/ledger.ts';
import { toMicros } from '../../lib/billing/money.ts';
import { loadConfig } from '../../lib/config.ts';
import { createAppBackend } from '../../lib/http/app-backend.ts';
import { createHttpServer } from '../../lib/http/server.ts';
import { createService } from '../../lib/service.ts';
import { createSession, SESSION_COOKIE } from '../../lib/users/sessions.ts';
import { signUp } from '../../lib/users/users.ts';

const config = loadConfig();
const svc = await createService(config);
const { user } = await signUp(svc.store, { email: `bench-${Date.now()}@example.test`, password: 'correct horse battery staple' });
await grantUsd(svc.store, user.accountId, toMicros(100_000));
const session = await createSession(svc.store, user.id);
const { secret } = await createKeyFrom(svc.store, user.accountId, { apiKeyType: 'INFERENCE', description: 'bench' } as Parameters<typeof createKeyFrom>[2]);
const { server } = createHttpServer(svc, { app: createAppBackend(svc), trustProxy: config.app.trustProxy });
server.listen(config.port, config.host, () => {
  const who = { cookie: `${SESSION_COOKIE}=${session.token}`, csrf: session.csrfToken, key: secret };
  console.log(`bench app on http://${config.host}:${config.port} ${JSON.stringify(who)}`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
