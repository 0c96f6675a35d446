// Starts a real Lagoon API server (in process, on a random port) over a fresh store, with the scripted engine as
// its upstream, for the API tests. Each harness owns its data dir (or PostgreSQL database) and removes it on close.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { createAccount } from '../../lib/accounts/accounts.ts';
import type { AppBackend } from '../../lib/http/app-backend.ts';
import { accountKeys, type KeyType } from '../../lib/auth/keys.ts';
import { grantUsd, setDiemDaily } from '../../lib/billing/ledger.ts';
import { toMicros } from '../../lib/billing/money.ts';
import { loadConfig } from '../../lib/config.ts';
import { DEFAULT_CATALOGUE } from '../../lib/models/catalogue.ts';
import { createHttpServer, type FallbackHandler } from '../../lib/http/server.ts';
import { createService, type Service } from '../../lib/service.ts';
import { type ScriptedEngine, startScriptedEngine } from './scripted-engine.ts';

export interface HarnessOptions {
  /** Extra catalogue models (the scripted models are always there); a function receives the scripted engine's URL. */
  models?: Record<string, unknown>[] | ((engineUrl: string) => Record<string, unknown>[]);
  systemPrompts?: string[];
  env?: Record<string, string>;
  /**
   * Rate-limit settings merged over the defaults (LAGOON_RATE_LIMITS). Unless a test sets abuse itself, the abuse
   * block is set out of reach: most tests provoke failures on purpose and are not about the block.
   */
  limits?: Record<string, unknown>;
  databaseUrl?: string;
  replicas?: number;
  /**
   * The browser app: `true` builds the app backend (`harness.app`), whose API the server answers under /api/app and
   * whose route handlers tests may also call directly; `{ next: true }` also serves the built Next pages
   * (LAGOON_NEXT_DIST, default .next) on the harness port, as scripts/serve.ts does. See hasNextBuild().
   */
  app?: boolean | { next?: boolean };
  /**
   * LAGOON_PUBLIC_URL from the harness's own origin (e.g. `(o) => o`), which is known only once it listens. Wallet
   * sign-in texts are bound to this origin, so browser and client tests that sign them need the real one. Applied
   * here, before startHarness returns, so tests never change the configuration of a running server themselves.
   */
  publicUrl?: (origin: string) => string;
}

export interface Harness {
  base: string; // http://127.0.0.1:PORT/api/v1
  origin: string; // http://127.0.0.1:PORT
  /** The app backend, with the `app` option. */
  app: AppBackend | undefined;
  svc: Service;
  engine: ScriptedEngine;
  replicas: ScriptedEngine[];
  dataDir: string;
  newAccount(opts?: { usd?: number; diemDaily?: number; keyType?: KeyType }): Promise<{ accountId: string; key: string }>;
  close(): Promise<void>;
}

/** A text model served by the scripted engine(s). */
export function scriptedModel(id: string, baseUrl: string | string[], over: Record<string, unknown> = {}) {
  return {
    id,
    name: `Scripted ${id}`,
    type: 'text',
    tier: 'XS',
    pricing: { input_usd: 1, output_usd: 2, input_diem: 1, output_diem: 2 },
    context_length: 8192,
    max_completion_tokens: 1024,
    capabilities: { function_calling: true, logprobs: true, response_schema: true, reasoning: true },
    traits: [],
    engine: { kind: 'openai', baseUrl, model: 'scripted', timeoutMs: 2000, totalTimeoutMs: 4000 },
    ...over,
  };
}

/** An embedding model (16 dimensions) served by the scripted engine at `baseUrl`. */
export function scriptedEmbeddingModel(baseUrl: string, over: Record<string, unknown> = {}) {
  return {
    id: 'embed-model',
    name: 'Scripted embeddings',
    type: 'embedding',
    tier: 'XS',
    pricing: { input_usd: 1, output_usd: 0, input_diem: 1, output_diem: 0 },
    context_length: 512,
    embedding: { dimensions: 16, max_input_tokens: 512 },
    engine: { kind: 'openai', baseUrl, model: 'scripted-embed', timeoutMs: 2000, totalTimeoutMs: 4000 },
    ...over,
  };
}

/** A model of the default catalogue (lib/models/default-catalogue.json), as its entry there. */
export function catalogueModel(id: string): Record<string, any> {
  return JSON.parse(fs.readFileSync(DEFAULT_CATALOGUE, 'utf8')).models.find((m: { id: string }) => m.id === id);
}

export async function startHarness(opts: HarnessOptions = {}): Promise<Harness> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lagoon-test-'));
  const replicas = await Promise.all(Array.from({ length: opts.replicas ?? 1 }, (_, i) => startScriptedEngine({ name: `replica-${i}` })));
  const engine = replicas[0];
  const catalogue = {
    system_prompts: opts.systemPrompts ?? ['You are the Lagoon test assistant.'],
    models: [
      scriptedModel('scripted-model', engine.url, { traits: ['default', 'fastest'] }),
      scriptedModel('plain-model', engine.url, {
        capabilities: {},
        pricing: { input_usd: 0.5, output_usd: 1, input_diem: 0.5, output_diem: 1, cached_input_usd: 0.1, cached_input_diem: 0.1 },
      }),
      scriptedModel('vision-model', engine.url, { capabilities: { vision: true } }),
      scriptedModel('old-model', engine.url, { deprecation: { date: '2027-01-31', replacement: 'scripted-model' } }),
      ...(opts.replicas && opts.replicas > 1
        ? [
            scriptedModel(
              'replicated-model',
              replicas.map((r) => r.url),
            ),
          ]
        : []),
      ...(typeof opts.models === 'function' ? opts.models(engine.url) : (opts.models ?? [])),
    ],
    compatibility_mapping: { 'gpt-4o': 'scripted-model' },
    image_styles: ['Anime', 'Photographic'],
  };
  const catalogueFile = path.join(dataDir, 'models.json');
  fs.writeFileSync(catalogueFile, JSON.stringify(catalogue, null, 2));
  const limitsFile = path.join(dataDir, 'rate-limits.json');
  fs.writeFileSync(limitsFile, JSON.stringify({ abuse: { maxFailures: 1_000_000 }, ...opts.limits }));
  // A start that fails (a bad catalogue, an unreachable database) stops the engines it started, or they would keep
  // the test process alive.
  const abandon = async (e: unknown): Promise<never> => {
    await Promise.all(replicas.map((r) => r.close()));
    fs.rmSync(dataDir, { recursive: true, force: true });
    throw e;
  };
  let config: ReturnType<typeof loadConfig>;
  let svc: Awaited<ReturnType<typeof createService>>;
  try {
    config = loadConfig({
      LAGOON_DATA_DIR: dataDir,
      LAGOON_MODELS: catalogueFile,
      LAGOON_RATE_LIMITS: limitsFile,
      PORT: '0',
      HOST: '127.0.0.1',
      ...(opts.databaseUrl ? { DATABASE_URL: opts.databaseUrl } : {}),
      // Until the port is known (below): the same host, so the service does not warn about an unset public URL.
      ...(opts.publicUrl ? { LAGOON_PUBLIC_URL: opts.publicUrl('http://127.0.0.1') } : {}),
      ...opts.env,
    });
    svc = await createService(config);
  } catch (e) {
    return abandon(e);
  }
  // Imported on demand: the API tests do not load the app's code.
  const app = opts.app ? (await import('../../lib/http/app-backend.ts')).createAppBackend(svc) : undefined;
  const withNext = typeof opts.app === 'object' && opts.app.next === true;
  // Next needs the port before it prepares; requests that arrive before it is ready wait for it.
  let nextApp: Promise<NextApp> | undefined;
  const pages: FallbackHandler | undefined = withNext ? async (req, res) => (await (nextApp as Promise<NextApp>)).handle(req, res) : undefined;
  const { server } = createHttpServer(svc, { app, pages, trustProxy: config.app.trustProxy });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  // The configuration's only reader of LAGOON_PUBLIC_URL (lib/wallet/config.ts), normalised the same way.
  // Without one, the origin it really listens on (a real server's PORT is known before it starts; the harness's is 0).
  if (opts.publicUrl) svc.config.wallet.publicOrigin = new URL(opts.publicUrl(`http://127.0.0.1:${port}`)).origin;
  else if (!opts.env?.LAGOON_PUBLIC_URL) svc.config.wallet.publicOrigin = `http://127.0.0.1:${port}`;
  if (withNext) {
    nextApp = startNext(port);
    await nextApp;
  }
  return {
    base: `http://127.0.0.1:${port}/api/v1`,
    origin: `http://127.0.0.1:${port}`,
    app,
    svc,
    engine,
    replicas,
    dataDir,
    async newAccount(o = {}) {
      const account = await createAccount(svc.store, `test-${Math.random().toString(36).slice(2, 8)}`);
      if ((o.usd ?? 10) > 0) await grantUsd(svc.store, account.id, toMicros(o.usd ?? 10));
      if (o.diemDaily) await setDiemDaily(svc.store, account.id, toMicros(o.diemDaily));
      const { secret } = await accountKeys(svc.store, account.id).create({ type: o.keyType ?? 'INFERENCE' });
      return { accountId: account.id, key: secret };
    },
    async close() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      if (nextApp) await (await nextApp).close();
      if (app) await app.close();
      await svc.close();
      await Promise.all(replicas.map((r) => r.close()));
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The Next build the harness serves: LAGOON_NEXT_DIST (relative to the repository), default .next. */
export const nextDistDir = (): string => path.resolve(REPO_ROOT, process.env.LAGOON_NEXT_DIST || '.next');

/** True when a finished Next build exists to serve (`npm run build`, or `LAGOON_NEXT_DIST=… next build`). */
export const hasNextBuild = (): boolean => fs.existsSync(path.join(nextDistDir(), 'BUILD_ID'));

interface NextApp {
  handle: FallbackHandler;
  close(): Promise<void>;
}

/** The production Next request handler over the existing build (next.config.mjs picks LAGOON_NEXT_DIST). */
async function startNext(port: number): Promise<NextApp> {
  if (!hasNextBuild()) throw new Error(`no Next build in ${nextDistDir()}: run \`npm run build\` (or set LAGOON_NEXT_DIST to a built folder)`);
  const { default: next } = await import('next');
  const nextApp = next({ dev: false, dir: REPO_ROOT, hostname: '127.0.0.1', port });
  await nextApp.prepare();
  return { handle: nextApp.getRequestHandler(), close: () => nextApp.close() };
}

/** POST JSON with a bearer key; returns status, headers and parsed body (or text). */
export async function post(h: Harness, path: string, key: string | undefined, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${h.base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, json: parseJson(text), text };
}

/** POST any body (JSON text, a form, bytes) with a bearer key; the answer's bytes, and its JSON when it is JSON. */
export async function postBytes(h: Harness, path: string, key: string | undefined, body: BodyInit, headers: Record<string, string> = {}) {
  const res = await fetch(`${h.base}${path}`, { method: 'POST', headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers }, body });
  const bytes = Buffer.from(await res.arrayBuffer());
  return { status: res.status, headers: res.headers, bytes, json: parseJson(bytes.toString('utf8')) };
}

export async function get(h: Harness, path: string, key?: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${h.base}${path}`, { headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers } });
  const text = await res.text();
  return { status: res.status, headers: res.headers, json: parseJson(text), text };
}

/** The body as JSON, or undefined when it is not JSON (CSV, plain text, a cut stream). */
function parseJson(text: string): any {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Parses an SSE body into its data payloads (JSON objects, plus the literal '[DONE]'). */
export function sseEvents(text: string): any[] {
  return text
    .split('\n\n')
    .map((e) => e.trim())
    .filter((e) => e.startsWith('data: '))
    .map((e) => e.slice(6))
    .map((d) => (d === '[DONE]' ? d : JSON.parse(d)));
}
