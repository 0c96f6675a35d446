// Two server processes sharing one PostgreSQL database and one Redis: one rate-limit budget and one ledger.
// With a limit of N requests per window, 3N requests spread over both servers admit exactly N; with credit for
// N requests, exactly N succeed and the balance ends at zero.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { getBalances } from '../../lib/billing/ledger.ts';
import { reconcile } from '../../lib/billing/entries.ts';
import { openStore } from '../../lib/db/open.ts';
import { scriptedModel } from '../support/harness.ts';
import { createTestDatabase } from '../support/pg.ts';
import { lagoonCliSync, type ServerProcess, startServers, stopServers } from '../support/processes.ts';
import { type ScriptedEngine, startScriptedEngine } from '../support/scripted-engine.ts';

const N = 6;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lagoon-multi-'));
let engine: ScriptedEngine;
let db: { url: string; drop(): Promise<void> };
let servers: ServerProcess[] = [];
let env: Record<string, string>;

const cli = (...args: string[]) => lagoonCliSync({ ...process.env, ...env }, ...args);

before(async () => {
  engine = await startScriptedEngine();
  db = await createTestDatabase();
  const models = path.join(dir, 'models.json');
  // Output-only pricing: [[tokens:100]] with max_tokens 100 costs exactly 100 micro-USD.
  const model = scriptedModel('shared', engine.url, { tier: 'L', pricing: { input_usd: 0, output_usd: 1, input_diem: 0, output_diem: 1 } });
  fs.writeFileSync(models, JSON.stringify({ models: [model] }));
  const limits = path.join(dir, 'limits.json');
  fs.writeFileSync(limits, JSON.stringify({ windowSeconds: 30, text: { default: { L: { rpm: N, tpm: 1_000_000 } } } }));
  env = {
    DATABASE_URL: db.url,
    REDIS_URL: 'redis://127.0.0.1:6379',
    LAGOON_REDIS_PREFIX: `lagoon-test-${randomUUID()}`,
    LAGOON_MODELS: models,
    LAGOON_RATE_LIMITS: limits,
    LAGOON_NO_APP: '1',
    LAGOON_DATA_DIR: dir,
  };
  servers = await startServers(2, env);
});
after(async () => {
  await stopServers(servers);
  servers = [];
  await engine.close();
  await db.drop();
  fs.rmSync(dir, { recursive: true, force: true });
});

const chat = (base: string, key: string) =>
  fetch(`${base}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ model: 'shared', max_tokens: 100, messages: [{ role: 'user', content: '[[tokens:100]] [[delay:20]]' }] }),
  }).then(async (r) => ({ status: r.status, body: await r.text() }));

test('3N requests spread over two servers sharing Redis admit exactly N', async () => {
  const account = cli('account', 'create', '--name', 'rate');
  const key = cli('key', 'create', '--account', account, '--type', 'INFERENCE');
  cli('credit', 'grant', '--account', account, '--usd', '10');
  const results = await Promise.all(Array.from({ length: 3 * N }, (_, i) => chat(servers[i % 2].base, key)));
  const statuses = results.map((r) => r.status);
  assert.equal(statuses.filter((s) => s === 200).length, N, statuses.join(','));
  assert.equal(statuses.filter((s) => s === 429).length, 2 * N);
});

test('credit for N requests, spent through two servers at once: exactly N succeed and the balance ends at 0', async () => {
  const account = cli('account', 'create', '--name', 'credit');
  const keys = [cli('key', 'create', '--account', account, '--type', 'INFERENCE'), cli('key', 'create', '--account', account, '--type', 'INFERENCE')];
  cli('credit', 'grant', '--account', account, '--usd', String((N * 100) / 1e6));
  // Two keys so the per-key rate limit (N) does not decide the outcome; the shared ledger must.
  const results = await Promise.all(Array.from({ length: 3 * N }, (_, i) => chat(servers[i % 2].base, keys[Math.floor(i / 2) % 2])));
  const statuses = results.map((r) => r.status);
  assert.equal(statuses.filter((s) => s === 200).length, N, statuses.join(','));
  assert.ok(
    statuses.every((s) => s === 200 || s === 402 || s === 429),
    statuses.join(','),
  );
  const store = await openStore({ databaseUrl: db.url, dataDir: dir });
  try {
    // Settlements commit within moments of the responses.
    let b = await getBalances(store, account);
    for (let i = 0; i < 50 && (b.usd !== 0 || b.usdHeld !== 0); i++) {
      await new Promise((r) => setTimeout(r, 50));
      b = await getBalances(store, account);
    }
    assert.deepEqual([b.usd, b.usdHeld], [0, 0]);
    assert.deepEqual((await reconcile(store)).differences, [], 'every balance is its ledger entries less its charges');
  } finally {
    await store.close();
  }
});
