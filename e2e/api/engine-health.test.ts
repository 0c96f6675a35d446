// Engines that never fail silently (issue 20): a server whose catalogue has a GGUF that does not exist, an upstream on
// a closed port, an upstream whose /models answers 500, and a baseUrl written without /v1. It starts; /models marks
// the broken ones offline with their reason; their requests get 503 ENGINE_DOWN naming the problem (never the key
// or the address); /readyz reports each engine; and an upstream started later on the closed port is picked up by
// the next check, with no server restart. The log lines are checked on a real server process (startLoggedServer).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type Harness, get, post, scriptedModel, startHarness } from '../support/harness.ts';
import { createTestDatabase } from '../support/pg.ts';
import { freePort, startLoggedServer } from '../support/processes.ts';
import { type ScriptedEngine, startScriptedEngine } from '../support/scripted-engine.ts';

const SECRET = 'sk-do-not-leak-4e1f9a';

/** An OpenAI-compatible server whose /v1/models answers `status` (chat is never reached while it is down). */
async function brokenModelsServer(status: () => number) {
  const server = http.createServer((req, res) => {
    if (req.url?.startsWith('/v1/models')) res.writeHead(status(), { 'content-type': 'application/json' }).end('{"error":{"message":"boom"}}');
    else res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, close: () => new Promise((r) => server.close(r)) };
}

/** Polls until `check` passes (engine checks run every 200 ms here). */
async function eventually(check: () => Promise<boolean>, what: string) {
  for (let i = 0; i < 100; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.fail(`never happened: ${what}`);
}

const chat = (h: Harness, key: string, model: string) => post(h, '/chat/completions', key, { model, messages: [{ role: 'user', content: 'hello' }] });

describe('engine health: broken engines are reported, refused with their reason, and recover', () => {
  let h: Harness;
  let key: string;
  let accountId: string;
  let closedPort: number;
  let revived: ScriptedEngine | undefined;
  let broken: Awaited<ReturnType<typeof brokenModelsServer>>;

  before(async () => {
    closedPort = await freePort();
    broken = await brokenModelsServer(() => 500);
    h = await startHarness({
      env: { LAGOON_ENGINE_CHECK_MS: '200', UPSTREAM_KEY: SECRET },
      models: (url) => [
        scriptedModel('gguf-missing', url, { engine: { kind: 'llama', path: '/nonexistent/lagoon-test/missing.gguf' } }),
        scriptedModel('closed-port', url, {
          engine: { kind: 'openai', baseUrl: `http://127.0.0.1:${closedPort}/v1`, model: 'scripted', apiKeyEnv: 'UPSTREAM_KEY', timeoutMs: 2000 },
        }),
        scriptedModel('models-500', url, { engine: { kind: 'openai', baseUrl: broken.url, model: 'scripted', timeoutMs: 2000 } }),
        // The scripted engine's URL without its /v1: normalised at load, so it works.
        scriptedModel('no-v1', url, { engine: { kind: 'openai', baseUrl: url.replace(/\/v1$/, ''), model: 'scripted', timeoutMs: 2000 } }),
      ],
    });
    ({ key, accountId } = await h.newAccount());
  });

  after(async () => {
    await h?.close();
    await revived?.close();
    await broken?.close();
  });

  test('the server starts and /models marks each broken model offline with its reason', async () => {
    const res = await get(h, '/models?type=text');
    assert.equal(res.status, 200);
    const spec = (id: string) => res.json.data.find((m: { id: string }) => m.id === id).model_spec;
    assert.equal(spec('gguf-missing').offline, true);
    assert.match(spec('gguf-missing').offlineReason, /GGUF file does not exist/);
    assert.equal(spec('closed-port').offline, true);
    assert.match(spec('closed-port').offlineReason, /refused the connection/);
    assert.equal(spec('models-500').offline, true);
    assert.match(spec('models-500').offlineReason, /answered \/models with 500/);
    assert.equal(spec('no-v1').offline, false);
    assert.equal(spec('no-v1').offlineReason, undefined);
    assert.equal(spec('scripted-model').offline, false);
    assert.doesNotMatch(res.text, new RegExp(SECRET));
  });

  test('requests for a broken model get 503 ENGINE_DOWN naming the problem, never the key or the address', async () => {
    const before = await h.svc.ledger.balances(accountId);
    for (const [model, reason] of [
      ['gguf-missing', /GGUF file does not exist/],
      ['closed-port', /refused the connection/],
      ['models-500', /answered \/models with 500/],
    ] as const) {
      const res = await chat(h, key, model);
      assert.equal(res.status, 503, model);
      assert.equal(res.json.code, 'ENGINE_DOWN');
      assert.match(res.json.error, new RegExp(`^Model ${model} is unavailable: `));
      assert.match(res.json.error, reason);
      assert.equal(res.headers.get('retry-after'), '1', 'checked again every 200 ms here');
      assert.doesNotMatch(res.text, new RegExp(`${SECRET}|127\\.0\\.0\\.1|nonexistent`));
    }
    // Refused before any hold: nothing charged, nothing held.
    const afterwards = await h.svc.ledger.balances(accountId);
    assert.equal(afterwards.usd, before.usd);
    assert.equal(afterwards.usdHeld, 0);
  });

  test('a fallback moves past a broken engine to a working model', async () => {
    const res = await post(h, '/chat/completions', key, {
      model: 'closed-port',
      fallbacks: [{ model: 'plain-model' }],
      messages: [{ role: 'user', content: 'hi' }],
    });
    assert.equal(res.status, 200, res.text);
  });

  test('a baseUrl without /v1 is normalised and serves', async () => {
    const res = await chat(h, key, 'no-v1');
    assert.equal(res.status, 200, res.text);
    const engine = h.svc.catalogue.byId.get('no-v1')!.engine;
    assert.equal(engine.kind === 'openai' && engine.baseUrl, h.engine.url);
  });

  test('/readyz reports the store and each engine; one broken engine is degraded, ?strict=1 is 503', async () => {
    const res = await fetch(`${h.origin}/readyz`);
    assert.equal(res.status, 200);
    const body = await res.json();
    assert.equal(body.status, 'degraded');
    assert.deepEqual(body.checks.store, { ok: true, kind: 'sqlite' });
    assert.equal(body.checks.engines['scripted-model'].ok, true);
    assert.equal(body.checks.engines['gguf-missing'].ok, false);
    assert.match(body.checks.engines['gguf-missing'].reason, /GGUF file does not exist/);
    assert.match(body.checks.engines['closed-port'].reason, /refused the connection/);
    assert.ok(Date.parse(body.checks.engines['closed-port'].checkedAt) > 0);
    const strict = await fetch(`${h.origin}/readyz?strict=1`);
    assert.equal(strict.status, 503);
    assert.equal((await strict.json()).status, 'not_ready');
    // Liveness is unchanged.
    assert.equal((await fetch(`${h.origin}/healthz`)).status, 200);
  });

  test('an upstream started later on the closed port is picked up without a server restart', async () => {
    revived = await startScriptedEngine({ port: closedPort });
    await eventually(async () => (await chat(h, key, 'closed-port')).status === 200, 'closed-port serves');
    const models = await get(h, '/models?type=text');
    assert.equal(models.json.data.find((m: { id: string }) => m.id === 'closed-port').model_spec.offline, false);
    // The upstream got the key the catalogue names, and the health check sent it too.
    assert.equal(revived.requests.at(-1)?.headers.authorization, `Bearer ${SECRET}`);
    // It goes away again: the next check (or the failed request's own recheck) marks it down again.
    await revived.close();
    revived = undefined;
    await eventually(async () => (await chat(h, key, 'closed-port')).json?.code === 'ENGINE_DOWN', 'closed-port down again');
  });
});

describe('engine health: the log names a broken engine once, with its reason', () => {
  test('a server process with a missing GGUF starts, logs it, and /readyz reports it', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lagoon-engine-log-'));
    const catalogue = path.join(dir, 'models.json');
    fs.writeFileSync(
      catalogue,
      JSON.stringify({
        models: [scriptedModel('lonely', 'http://127.0.0.1:9/v1', { traits: ['default'], engine: { kind: 'llama', path: './missing.gguf' } })],
      }),
    );
    const server = await startLoggedServer({
      ...process.env,
      LAGOON_DATA_DIR: dir,
      LAGOON_MODELS: catalogue,
      LAGOON_NO_APP: '1',
      LAGOON_ENGINE_CHECK_MS: '200',
      // The test runner's default level is error; the line is a warning.
      LAGOON_LOG_LEVEL: 'warn',
      PORT: '0',
      HOST: '127.0.0.1',
    });
    try {
      const ready = await fetch(`${server.origin}/readyz`);
      assert.equal(ready.status, 503, 'its only text model is down: not ready');
      const body = await ready.json();
      assert.match(body.checks.engines.lonely.reason, /GGUF file does not exist/);
      await eventually(async () => /engine down/.test(server.log()), 'the log line');
      // Several more checks run (a broken engine is rechecked every 200 ms here) without a line each.
      await new Promise((r) => setTimeout(r, 1000));
      const lines = server
        .log()
        .split('\n')
        .filter((l) => l.includes('engine down'));
      assert.equal(lines.length, 1, 'logged once, not once per check');
      assert.match(lines[0], /llama engine of lonely/);
      assert.match(lines[0], /missing\.gguf/);
      assert.match(lines[0], /GGUF file does not exist/);
    } finally {
      server.proc.kill('SIGTERM');
      await server.exited;
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('engine health on PostgreSQL', () => {
  test('/readyz checks the PostgreSQL store; a broken engine is refused there too', async () => {
    const { url: databaseUrl, drop } = await createTestDatabase();
    const h = await startHarness({
      databaseUrl,
      env: { LAGOON_ENGINE_CHECK_MS: '200' },
      models: (url) => [scriptedModel('gguf-missing', url, { engine: { kind: 'llama', path: '/nonexistent/lagoon-test/pg.gguf' } })],
    });
    try {
      const body = await (await fetch(`${h.origin}/readyz`)).json();
      assert.deepEqual(body.checks.store, { ok: true, kind: 'postgres' });
      assert.equal(body.checks.engines['gguf-missing'].ok, false);
      const { key, accountId } = await h.newAccount();
      const res = await chat(h, key, 'gguf-missing');
      assert.equal(res.status, 503);
      assert.equal(res.json.code, 'ENGINE_DOWN');
      assert.equal((await h.svc.ledger.balances(accountId)).usdHeld, 0);
    } finally {
      await h.close();
      await drop();
    }
  });
});
