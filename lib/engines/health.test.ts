// The engine checks one by one (probeEngine: GGUF headers, OpenAI-compatible /models answers) and the monitor that
// keeps them (EngineHealth: one check per shared engine, one log line per change of state, the 503 it refuses with).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ApiError } from '../api/errors.ts';
import type { ModelEntry } from '../models/schema.ts';
import { EngineHealth, type ProbeResult, probeEngine, safeUrl } from './health.ts';
import { probeGguf } from './health-probe.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lagoon-engine-health-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

function file(name: string, bytes: Buffer | string): string {
  const p = path.join(dir, name);
  fs.writeFileSync(p, bytes);
  return p;
}

const header = (magic: string, version: number) => {
  const b = Buffer.alloc(32);
  b.write(magic, 0, 'latin1');
  b.writeUInt32LE(version, 4);
  return b;
};

describe('probeGguf', () => {
  test('a GGUF header passes; anything else names what is wrong', async () => {
    assert.deepEqual(await probeGguf(file('ok.gguf', header('GGUF', 3)), false), { ok: true, where: path.join(dir, 'ok.gguf') });
    assert.match(((await probeGguf(file('text.gguf', 'hello world, not a model'), false)) as { reason: string }).reason, /not a GGUF file/);
    assert.match(((await probeGguf(file('v9.gguf', header('GGUF', 9)), false)) as { reason: string }).reason, /unknown format version \(9\)/);
    assert.match(((await probeGguf(file('short.gguf', 'GG'), false)) as { reason: string }).reason, /not a GGUF file/);
    fs.mkdirSync(path.join(dir, 'folder.gguf'), { recursive: true });
    assert.match(((await probeGguf(path.join(dir, 'folder.gguf'), false)) as { reason: string }).reason, /is a directory/);
    const missing = await probeGguf(path.join(dir, 'missing.gguf'), false);
    assert.equal(missing.ok, false);
    assert.equal((missing as { reason: string }).reason, 'its GGUF file does not exist');
  });

  test('the demo GGUF may be missing: it is written on first use', async () => {
    const r = await probeGguf(path.join(dir, 'demo-missing.gguf'), true);
    assert.equal(r.ok, true);
    assert.match((r as { note: string }).note, /written on first use/);
  });
});

describe('probeEngine: OpenAI-compatible upstreams', () => {
  let server: http.Server;
  let url: string;
  let closed: string;
  before(async () => {
    server = http.createServer((req, res) => {
      const send = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      if (req.url === '/keyed/v1/models')
        return req.headers.authorization === 'Bearer s3cret' ? send(200, { data: [{ id: 'm' }] }) : send(401, { error: 'no' });
      if (req.url === '/ok/v1/models') return send(200, { data: [{ id: 'served-a' }, { id: 'served-b' }] });
      if (req.url === '/busy/v1/models') return send(503, { error: 'loading' });
      if (req.url === '/html/v1/models') return res.writeHead(200, { 'content-type': 'text/html' }).end('<html>');
      send(404, { error: 'not here' });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const c = http.createServer();
    await new Promise<void>((r) => c.listen(0, '127.0.0.1', r));
    closed = `http://127.0.0.1:${(c.address() as AddressInfo).port}/v1`;
    await new Promise((r) => c.close(r));
  });
  after(() => new Promise((r) => server.close(r)));

  const openai = (baseUrl: string | string[], extra: Record<string, unknown> = {}) => ({ kind: 'openai' as const, baseUrl, ...extra });

  test('a listing that includes the served model is ok', async () => {
    assert.deepEqual(await probeEngine(openai(`${url}/ok/v1`, { model: 'served-a' })), { ok: true, where: `${url}/ok/v1/models` });
  });

  test('a served model the upstream does not list is a note, not a failure', async () => {
    const r = await probeEngine(openai(`${url}/ok/v1`), { modelId: 'other' });
    assert.equal(r.ok, true);
    assert.match((r as { note: string }).note, /does not list "other" \(it lists served-a, served-b\)/);
  });

  test('the key goes as a bearer header; without it the reason says so and never shows it', async () => {
    const vars = (n: string) => (n === 'K' ? 's3cret' : undefined);
    assert.equal((await probeEngine(openai(`${url}/keyed/v1`, { apiKeyEnv: 'K' }), { vars })).ok, true);
    const refused = await probeEngine(openai(`${url}/keyed/v1`, { apiKeyEnv: 'WRONG' }), { vars: (n) => (n === 'WRONG' ? 'nope' : undefined) });
    assert.match((refused as { reason: string }).reason, /refused its credentials \(401/);
    assert.doesNotMatch(JSON.stringify(refused), /nope|s3cret/);
    const unset = await probeEngine(openai(`${url}/keyed/v1`, { apiKeyEnv: 'UNSET_VAR' }));
    assert.equal((unset as { reason: string }).reason, 'the environment variable UNSET_VAR (its API key) is not set');
  });

  test('404 points at the baseUrl; a non-list answer, a closed port and a busy upstream are told apart', async () => {
    assert.match(((await probeEngine(openai(`${url}/nowhere`))) as { reason: string }).reason, /no \/models \(404\).*usually ends in \/v1/);
    assert.match(((await probeEngine(openai(`${url}/html/v1`))) as { reason: string }).reason, /something other than an OpenAI model list/);
    assert.match(((await probeEngine(openai(closed))) as { reason: string }).reason, /refused the connection/);
    const busy = await probeEngine(openai(`${url}/busy/v1`));
    assert.equal(busy.ok, true);
    assert.match((busy as { note: string }).note, /503 \(busy or loading\)/);
  });

  test('replicas: down only when none answers; a dead one is a note', async () => {
    const some = await probeEngine(openai([closed, `${url}/ok/v1`]));
    assert.equal(some.ok, true);
    assert.match((some as { note: string }).note, /replica 1 of 2: the upstream refused the connection/);
    assert.equal((await probeEngine(openai([closed, closed]))).ok, false);
  });

  test('safeUrl drops credentials, query and fragment', () => {
    assert.equal(safeUrl('https://user:pw@host.example:8443/v1/models?key=abc#x'), 'https://host.example:8443/v1/models');
  });
});

describe('EngineHealth', () => {
  const model = (id: string, engine: Record<string, unknown>) => ({ id, engine }) as unknown as ModelEntry;

  function monitor(models: ModelEntry[] | (() => ModelEntry[]), answers: (spec: unknown) => ProbeResult) {
    const lines: { level: string; msg: string; fields: Record<string, unknown> }[] = [];
    const probed: unknown[] = [];
    const served: (string[] | undefined)[] = [];
    const health = new EngineHealth(models, {
      vars: () => undefined,
      intervalMs: 60_000,
      log: {
        warn: (fields, msg) => lines.push({ level: 'warn', msg, fields }),
        info: (fields, msg) => lines.push({ level: 'info', msg, fields }),
      },
      probe: async (spec, opts) => {
        probed.push(spec);
        served.push(opts?.served);
        return answers(spec);
      },
    });
    return { health, lines, probed, served };
  }

  test('models on one engine share one check; a state change is logged once; the refusal is a 503 naming the problem', async () => {
    let up = false;
    const shared = { kind: 'openai', baseUrl: 'http://gpu:8000/v1', model: 'x' };
    const { health, lines, probed } = monitor([model('a', shared), model('b', shared)], () =>
      up ? { ok: true } : { ok: false, reason: 'the upstream refused the connection', where: 'http://gpu:8000/v1/models' },
    );
    await health.start();
    health.stop();
    assert.equal(probed.length, 1);
    assert.equal(health.status('a')?.ok, false);
    const refused = health.refusal('b');
    assert.ok(refused instanceof ApiError);
    assert.equal(refused.code, 'ENGINE_DOWN');
    assert.equal(refused.status, 503);
    assert.equal(refused.message, 'Model b is unavailable: the upstream refused the connection. The server checks it again shortly.');
    assert.equal(refused.headers?.['retry-after'], '5', 'a broken engine is checked again every 5 s');
    await health.checkAll();
    await health.checkAll();
    assert.equal(lines.length, 1, 'still down: no new line');
    assert.equal(lines[0].level, 'warn');
    assert.match(lines[0].msg, /^engine down: the openai engine of a, b \(http:\/\/gpu:8000\/v1\/models\): the upstream refused the connection$/);
    assert.deepEqual(lines[0].fields.models, ['a', 'b']);
    up = true;
    await health.checkAll();
    assert.equal(health.refusal('a'), undefined);
    assert.equal(lines.length, 2);
    assert.match(lines[1].msg, /^engine available again/);
    assert.deepEqual(Object.keys(health.snapshot()), ['a', 'b']);
  });

  test("an upstream's models share one check whatever their served names, which the check is told", async () => {
    const on = (name: string) => ({ kind: 'openai', baseUrl: 'http://gpu:8000/v1', model: name, timeoutMs: name.length });
    const { health, probed, served } = monitor([model('q', on('Qwen/Qwen3-8B')), model('l', on('llama3')), model('l2', on('llama3'))], () => ({ ok: true }));
    await health.start();
    health.stop();
    assert.equal(probed.length, 1);
    assert.deepEqual(served[0], ['Qwen/Qwen3-8B', 'llama3']);
  });

  test('checking off (interval 0): nothing is probed and every engine counts as available', async () => {
    let probes = 0;
    const off = new EngineHealth([model('a', { kind: 'llama', path: '/nope' })], {
      vars: () => undefined,
      intervalMs: 0,
      probe: async () => {
        probes++;
        return { ok: false, reason: 'x' };
      },
    });
    await off.start();
    await off.setModels([model('b', { kind: 'llama', path: '/other' })]);
    assert.equal(off.enabled, false);
    assert.equal(off.refusal('a'), undefined);
    assert.equal(probes, 0);
  });

  test('a catalogue changed at run time is followed: new engines checked, kept ones keep their status', async () => {
    const models = [model('a', { kind: 'llama', path: '/a.gguf' })];
    const { health, probed } = monitor(
      () => models,
      (spec) => ((spec as { path: string }).path === '/b.gguf' ? { ok: false, reason: 'its GGUF file does not exist' } : { ok: true }),
    );
    await health.start();
    health.stop();
    models.push(model('b', { kind: 'llama', path: '/b.gguf' }));
    await health.setModels(models);
    assert.equal(probed.length, 2, 'only the new engine was checked');
    assert.equal(health.status('a')?.ok, true);
    assert.equal(health.status('b')?.reason, 'its GGUF file does not exist');
    assert.equal(health.status('gone'), undefined);
  });
});
