// The real start command: one process serving the API, the browser app and /healthz on one port, on the embedded
// defaults (SQLite, the generated demo model), and stopping gracefully on SIGTERM.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { sseEvents } from '../support/harness.ts';
import { lagoonCliSync } from '../support/processes.ts';
import { DEMO_PUNCTUATION, DEMO_WORDS } from '../../lib/engines/text/llama/demo-model.ts';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lagoon-server-'));
let server: ChildProcess;
let base: string;
let key: string;
let output = '';

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
const cli = (...args: string[]) => lagoonCliSync({ ...process.env, LAGOON_DATA_DIR: dataDir }, ...args);

before(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  server = spawn(process.execPath, ['scripts/serve.ts'], {
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', LAGOON_DATA_DIR: dataDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  server.stdout!.on('data', (b) => (output += b));
  server.stderr!.on('data', (b) => (output += b));
  for (let i = 0; i < 300; i++) {
    const ok = await fetch(`${base}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const account = cli('account', 'create', '--name', 'server-test');
  key = cli('key', 'create', '--account', account, '--type', 'INFERENCE');
  cli('credit', 'grant', '--account', account, '--usd', '1');
});
after(() => {
  if (server.exitCode === null) server.kill('SIGKILL');
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const vocabulary = new Set([...DEMO_WORDS, ...DEMO_PUNCTUATION].map((w) => w.toLowerCase()));
const readable = (text: string) =>
  text
    .toLowerCase()
    .match(/[a-z']+|[.,!?]/g)!
    .every((w) => vocabulary.has(w));

test('GET /healthz answers 200 and the browser app is served on the same port', async () => {
  assert.equal((await fetch(`${base}/healthz`)).status, 200);
  const page = await fetch(`${base}/`);
  assert.equal(page.status, 200);
  assert.match(await page.text(), /Lagoon/);
});

test('the demo model was generated and is listed', async () => {
  assert.ok(fs.existsSync(path.join(dataDir, 'models', 'lagoon-demo.gguf')));
  const models = await (await fetch(`${base}/api/v1/models`)).json();
  assert.equal(models.data[0].id, 'lagoon-demo');
  assert.equal(models.data[0].model_spec.demo, true);
});

test('chat with the demo model (llama.cpp in process) answers in readable words, plain and streamed', async () => {
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${key}` };
  const res = await fetch(`${base}/api/v1/chat/completions`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ model: 'default', max_tokens: 24, messages: [{ role: 'user', content: 'Tell me a story.' }] }),
  });
  assert.equal(res.status, 200, output);
  const body = await res.json();
  assert.equal(body.model, 'lagoon-demo');
  assert.match(res.headers.get('x-service-model-router')!, /^llama:lagoon-demo\.gguf$/);
  assert.ok(readable(body.choices[0].message.content), body.choices[0].message.content);
  assert.ok(body.usage.completion_tokens > 0 && body.usage.completion_tokens <= 24);
  assert.ok(body.cost.usd > 0);
  const s = await fetch(`${base}/api/v1/chat/completions`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ model: 'lagoon-demo', stream: true, max_tokens: 16, messages: [{ role: 'user', content: 'Hello!' }] }),
  });
  const events = sseEvents(await s.text());
  assert.equal(events.at(-1), '[DONE]');
  const text = events
    .slice(0, -1)
    .flatMap((e) => e.choices)
    .map((c: any) => c.delta.content ?? '')
    .join('');
  assert.ok(text.length > 0 && readable(text), text);
});

test('embeddings with the demo embedding model (llama.cpp in process): unit vectors, same text → same vector', async () => {
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${key}` };
  const input = ['a story about a fox', 'the sea', 'a story about a fox'];
  const res = await fetch(`${base}/api/v1/embeddings`, { method: 'POST', headers, body: JSON.stringify({ model: 'text-embedding-3-small', input }) });
  assert.equal(res.status, 200, output);
  const body = await res.json();
  assert.equal(body.model, 'lagoon-demo-embed');
  assert.match(res.headers.get('x-service-model-router')!, /^llama:lagoon-demo\.gguf$/);
  const vectors: number[][] = body.data.map((d: any) => d.embedding);
  for (const v of vectors) assert.ok(v.length === 64 && Math.abs(Math.hypot(...v) - 1) < 1e-9);
  assert.deepEqual(vectors[0], vectors[2]);
  assert.notDeepEqual(vectors[0], vectors[1]);
  assert.ok(body.usage.prompt_tokens > 0 && body.usage.total_tokens === body.usage.prompt_tokens);
  const listed = await (await fetch(`${base}/api/v1/models?type=embedding`)).json();
  assert.deepEqual(
    listed.data.map((m: any) => [m.id, m.model_spec.embeddingDimensions]),
    [['lagoon-demo-embed', 64]],
  );
});

test('a second server on the same data dir refuses to start', async () => {
  const port = await freePort();
  const second = spawn(process.execPath, ['scripts/serve.ts'], {
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', LAGOON_DATA_DIR: dataDir, LAGOON_NO_APP: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  second.stderr!.on('data', (b) => (err += b));
  const code = await new Promise((r) => second.on('exit', r));
  assert.notEqual(code, 0);
  assert.match(err, /another Lagoon server/);
});

test('SIGTERM stops it gracefully, with every usage row written', async () => {
  server.kill('SIGTERM');
  const code = await new Promise((r) => server.on('exit', r));
  assert.equal(code, 0, output);
  const { openStore } = await import('../../lib/db/open.ts');
  const store = await openStore({ dataDir });
  try {
    const rows = await store.all('SELECT * FROM usage');
    assert.equal(rows.length, 3);
  } finally {
    await store.close();
  }
});
