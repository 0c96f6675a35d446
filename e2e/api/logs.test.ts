// The structured log of a real server process: at LAGOON_LOG_LEVEL=info, one JSON line per API request on stdout,
// with its CF-RAY id, method, route pattern, status, duration, account and model; never the key or the prompt.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { loadConfig } from '../../lib/config.ts';
import { scriptedModel } from '../support/harness.ts';
import { type LoggedServer, lagoonCli, startLoggedServer } from '../support/processes.ts';
import { type ScriptedEngine, startScriptedEngine } from '../support/scripted-engine.ts';

let engine: ScriptedEngine;
let server: LoggedServer;
let dataDir: string;
let env: NodeJS.ProcessEnv;

before(async () => {
  engine = await startScriptedEngine({ name: 'logs' });
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lagoon-logs-'));
  const catalogue = path.join(dataDir, 'models.json');
  fs.writeFileSync(catalogue, JSON.stringify({ system_prompts: [], models: [scriptedModel('log-model', engine.url, { traits: ['default'] })] }));
  env = { ...process.env, LAGOON_NO_APP: '1', LAGOON_DATA_DIR: dataDir, LAGOON_MODELS: catalogue, HOST: '127.0.0.1', PORT: '0', LAGOON_LOG_LEVEL: 'info' };
  server = await startLoggedServer(env);
});

after(async () => {
  if (server.proc.exitCode === null) server.proc.kill('SIGTERM');
  await server.exited;
  await engine.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/** The JSON lines the server has written so far (its startup banner is plain text). */
function jsonLines(): Record<string, unknown>[] {
  return server
    .log()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l));
}

async function lineFor(requestId: string): Promise<Record<string, unknown>> {
  // Lines are written asynchronously: wait for this one to arrive.
  for (let i = 0; i < 100; i++) {
    const found = jsonLines().filter((l) => l.requestId === requestId);
    if (found.length) {
      assert.equal(found.length, 1, `one line per request, got ${found.length}`);
      return found[0];
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`no log line for request ${requestId}:\n${server.log()}`);
}

test('one JSON line per request with its id, route, status, duration, account and model; no key, no prompt', async () => {
  const accountId = await lagoonCli(env, 'account', 'create', '--name', 'logged');
  const key = await lagoonCli(env, 'key', 'create', '--account', accountId, '--type', 'INFERENCE');
  await lagoonCli(env, 'credit', 'grant', '--account', accountId, '--usd', '5');
  const prompt = 'the-secret-prompt-words-4711';

  const chat = await fetch(`${server.origin}/api/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'log-model', messages: [{ role: 'user', content: prompt }] }),
  });
  assert.equal(chat.status, 200);
  await chat.text();
  const line = await lineFor(chat.headers.get('cf-ray')!);
  assert.equal(line.level, 'info');
  assert.equal(line.method, 'POST');
  assert.equal(line.route, '/api/v1/chat/completions');
  assert.equal(line.status, 200);
  assert.equal(typeof line.ms, 'number');
  assert.ok((line.ms as number) >= 0);
  assert.equal(line.account, accountId);
  assert.equal(line.model, 'log-model');

  // A key's own route is logged by its pattern, not its path; a refused key has no account.
  const keyId = 'b3f1c2d4-0000-4000-8000-000000000000';
  const one = await fetch(`${server.origin}/api/v1/api_keys/${keyId}`, { headers: { authorization: `Bearer ${key}` } });
  await one.text();
  const oneLine = await lineFor(one.headers.get('cf-ray')!);
  assert.equal(oneLine.route, '/api/v1/api_keys/:id');
  const refused = await fetch(`${server.origin}/api/v1/models`, { headers: { authorization: 'Bearer lgn_inf_not-a-real-key-0000000000000000000' } });
  await refused.text();
  const refusedLine = await lineFor(refused.headers.get('cf-ray')!);
  assert.equal(refusedLine.account, undefined);

  // An engine failure: the request's line says 500, and a warning names the cause the client never sees.
  const failed = await fetch(`${server.origin}/api/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'log-model', messages: [{ role: 'user', content: `[[status:500]] ${prompt}` }] }),
  });
  assert.equal(failed.status, 500);
  assert.doesNotMatch(await failed.text(), /upstream error 500/);
  assert.equal((await lineFor(failed.headers.get('cf-ray')!)).status, 500);
  const cause = jsonLines().find((l) => l.msg === 'engine call failed');
  assert.equal(cause?.level, 'warn');
  assert.equal(cause?.cause, 'upstream error 500');

  const log = server.log();
  assert.ok(!log.includes(key), 'the key appears in the log');
  assert.ok(!log.includes(prompt), 'the prompt appears in the log');
  assert.ok(!log.includes(keyId), 'a raw path appears in the log');
});

test('the level comes from LAGOON_LOG_LEVEL: info by default, error under NODE_ENV=test, a bad value named', () => {
  assert.equal(loadConfig({ NODE_ENV: 'production' }).logLevel, 'info');
  assert.equal(loadConfig({ NODE_ENV: 'test' }).logLevel, 'error');
  assert.equal(loadConfig({ NODE_ENV: 'test', LAGOON_LOG_LEVEL: 'debug' }).logLevel, 'debug');
  assert.throws(() => loadConfig({ LAGOON_LOG_LEVEL: 'loud' }), /LAGOON_LOG_LEVEL must be "trace" or/);
});
