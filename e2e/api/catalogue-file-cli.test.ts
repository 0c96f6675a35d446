// `npx lagoon model add` (scripts/lagoon-model.ts) against a loopback fake upstream: --discover lists its /v1/models
// (with the key the named variable holds) and writes the extra catalogue file, which the server then loads on top of
// the default catalogue; --gguf checks the file's header first.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { DEFAULT_CATALOGUE, loadCatalogue } from '../../lib/models/catalogue.ts';

const run = promisify(execFile);
const KEY = 'k-fake-upstream-123';

let upstream: http.Server;
let origin: string;
let dir: string;

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lagoon-model-cli-'));
  // vLLM-like: a key is required; one chat model with its context, one embedding model answering /embeddings.
  upstream = http.createServer((req, res) => {
    if (req.headers.authorization !== `Bearer ${KEY}`) return void res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"no key"}');
    if (req.method === 'GET' && req.url === '/v1/models') {
      return void res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          object: 'list',
          data: [
            { id: 'Qwen/Qwen3-8B', object: 'model', max_model_len: 32768 },
            { id: 'llama3:latest', object: 'model' },
            { id: 'BAAI/bge-small-en-v1.5-embed', object: 'model', max_model_len: 512 },
          ],
        }),
      );
    }
    if (req.method === 'POST' && req.url === '/v1/embeddings') {
      return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data: [{ index: 0, embedding: [0.1, 0.2, 0.3, 0.4] }] }));
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
});
after(async () => {
  await new Promise((r) => upstream.close(r));
  fs.rmSync(dir, { recursive: true, force: true });
});

const env = (extra: Record<string, string> = {}) => ({ ...process.env, LAGOON_DATA_DIR: dir, UPSTREAM_KEY: KEY, ...extra });
const extraFile = () => path.join(dir, 'models.local.json');

async function cli(args: string[], extraEnv: Record<string, string> = {}) {
  try {
    const { stdout, stderr } = await run(process.execPath, ['scripts/lagoon.ts', 'model', ...args], { env: env(extraEnv) });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

describe('npx lagoon model add', () => {
  test('--discover adds every model the upstream lists, to the extra file the server loads over the default catalogue', async () => {
    // The bare origin: the CLI adds /v1, as the server does.
    const r = await cli(['add', '--upstream', origin, '--discover', '--key-env', 'UPSTREAM_KEY', '--default', '--price-in', '0.1', '--price-out', '0.4']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.trim().split('\n').at(-1), extraFile());
    assert.match(r.stdout, /added Qwen\/Qwen3-8B\nadded llama3-latest\nadded BAAI\/bge-small-en-v1\.5-embed/);
    const written = JSON.parse(fs.readFileSync(extraFile(), 'utf8'));
    assert.doesNotMatch(JSON.stringify(written), new RegExp(KEY), 'the key itself is never written, only its variable name');
    const qwen = written.models[0];
    assert.deepEqual(qwen.engine, { kind: 'openai', baseUrl: `${origin}/v1`, model: 'Qwen/Qwen3-8B', apiKeyEnv: 'UPSTREAM_KEY' });
    assert.equal(qwen.context_length, 32768);
    assert.deepEqual(qwen.traits, ['default']);
    assert.deepEqual(qwen.pricing, { input_usd: 0.1, output_usd: 0.4, input_diem: 0.1, output_diem: 0.4 });
    assert.equal(written.models[1].engine.model, 'llama3:latest');
    assert.equal(written.models[1].context_length, 8192);
    assert.deepEqual(written.models[1].traits, []);
    assert.equal(written.models[2].type, 'embedding');
    assert.deepEqual(written.models[2].embedding, { dimensions: 4 });

    // The server's loader: the default catalogue, plus these; the new default takes over from the demo.
    const cat = loadCatalogue(DEFAULT_CATALOGUE, (n) => (n === 'LAGOON_DATA_DIR' ? dir : undefined), { file: extraFile(), required: false });
    assert.ok(cat.byId.has('lagoon-demo-embed'));
    assert.ok(cat.byId.get('Qwen/Qwen3-8B')!.traits.includes('default'));
    assert.ok(!cat.byId.get('lagoon-demo')!.traits.includes('default'));

    // `models list` shows them too.
    const { stdout } = await run(process.execPath, ['scripts/lagoon.ts', 'models', 'list'], { env: env() });
    assert.match(stdout, /^Qwen\/Qwen3-8B\ttext\t/m);
  });

  test('running it again updates the entries instead of adding copies', async () => {
    const r = await cli([
      'add',
      '--upstream',
      `${origin}/v1`,
      '--model',
      'llama3:latest',
      '--key-env',
      'UPSTREAM_KEY',
      '--id',
      'llama3-latest',
      '--context',
      '4096',
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^updated llama3-latest$/m);
    const written = JSON.parse(fs.readFileSync(extraFile(), 'utf8'));
    assert.equal(written.models.filter((m: { id: string }) => m.id === 'llama3-latest').length, 1);
    assert.equal(written.models.find((m: { id: string }) => m.id === 'llama3-latest').context_length, 4096);
    // The upstream answered the check: no warning.
    assert.doesNotMatch(r.stderr, /warning/);
  });

  test('without the key the upstream refuses, and the CLI says which flag is missing', async () => {
    const r = await cli(['add', '--upstream', origin, '--discover']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /refused the credentials \(401\): pass --key-env/);
  });

  test('--gguf checks the header: a GGUF is added, another file is refused with the reason', async () => {
    const gguf = path.join(dir, 'Tiny-Model.Q4_K_M.gguf');
    const header = Buffer.alloc(24);
    header.write('GGUF', 0, 'latin1');
    header.writeUInt32LE(3, 4);
    fs.writeFileSync(gguf, header);
    const ok = await cli(['add', '--gguf', gguf, '--context', '2048']);
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(ok.stdout, /^added tiny-model\.q4_k_m$/m);
    const entry = JSON.parse(fs.readFileSync(extraFile(), 'utf8')).models.find((m: { id: string }) => m.id === 'tiny-model.q4_k_m');
    assert.deepEqual(entry.engine, { kind: 'llama', path: gguf });
    const notGguf = path.join(dir, 'notes.gguf');
    fs.writeFileSync(notGguf, 'hello, this is text');
    const bad = await cli(['add', '--gguf', notGguf]);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /not a GGUF file/);
  });

  test("bad usage exits 2 with the command's help", async () => {
    for (const args of [['add'], ['add', '--upstream', 'localhost:8000', '--model', 'x'], ['add', '--gguf', 'x', '--context', '-1'], ['frobnicate']]) {
      const r = await cli(args);
      assert.equal(r.code, 2, args.join(' '));
      assert.match(r.stderr, /usage:\n {2}model add --upstream URL/);
    }
  });
});
