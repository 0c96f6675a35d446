// SIGTERM under load: the real server (scripts/serve.ts, API only) gets about 200 concurrent chat requests, plain
// and streamed, some slow, and is stopped while they are in flight. It must exit 0 having finished every request
// it had accepted, and the store must reconcile: every credit granted is either still on the account or in a usage
// row, nothing stays held, and every complete 200 response has its usage row with the cost it reported.
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { openStore } from '../../lib/db/open.ts';
import { scriptedModel } from '../support/harness.ts';
import { loadChat } from '../support/load.ts';
import { lagoonCli, startLoggedServer } from '../support/processes.ts';
import { createTestDatabase } from '../support/pg.ts';
import { type ScriptedEngine, startScriptedEngine } from '../support/scripted-engine.ts';

const REQUESTS = 200;
const DAY = 86_400_000;

for (const backend of ['sqlite', 'postgres'] as const) {
  describe(`graceful stop on ${backend}`, () => {
    let engine: ScriptedEngine;
    let dataDir: string;
    let env: NodeJS.ProcessEnv;
    let dropDb = async () => {};
    let server: ChildProcess | undefined;

    before(async () => {
      engine = await startScriptedEngine({ name: 'graceful' });
      dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lagoon-graceful-'));
      const catalogue = path.join(dataDir, 'models.json');
      fs.writeFileSync(
        catalogue,
        JSON.stringify({
          system_prompts: [],
          models: [
            // The engine's own time limits well above what 200 requests on a loaded machine take: a 504 from the
            // engine call is not what this test is about (a cut or lost response is).
            scriptedModel('graceful-model', engine.url, {
              traits: ['default'],
              engine: { kind: 'openai', baseUrl: engine.url, model: 'scripted', timeoutMs: 15_000, totalTimeoutMs: 30_000 },
            }),
          ],
        }),
      );
      env = { ...process.env, LAGOON_NO_APP: '1', LAGOON_DATA_DIR: dataDir, LAGOON_MODELS: catalogue, HOST: '127.0.0.1', PORT: '0' };
      if (backend === 'postgres') {
        const db = await createTestDatabase();
        env.DATABASE_URL = db.url;
        dropDb = db.drop;
      }
    });
    after(async () => {
      if (server && server.exitCode === null && server.signalCode === null) server.kill('SIGKILL');
      await engine.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
      await dropDb();
    });

    const cli = (...args: string[]) => lagoonCli(env, ...args);

    test(`SIGTERM with ${REQUESTS} requests in flight: exit 0, every accepted request finished and billed, the ledger reconciles`, async (t) => {
      const accountId = await cli('account', 'create', '--name', 'graceful');
      const key = await cli('key', 'create', '--account', accountId, '--type', 'INFERENCE');
      await cli('credit', 'grant', '--account', accountId, '--usd', '20');
      await cli('credit', 'grant', '--account', accountId, '--usd', '5');
      // A small DIEM allowance runs out during the load, so charges move from DIEM to USD under concurrency.
      await cli('diem', 'set', '--account', accountId, '--daily', '0.002');

      const launched = await startLoggedServer(env);
      const srv = launched.proc;
      server = srv;
      const { exited, origin: base } = launched;

      // The requests go out over about 200 ms; SIGTERM comes once the engine has a quarter of them, so some are
      // streaming, some are waiting for a slow answer, and the latest ones meet a closed listener.
      const outcomes = Promise.all(
        Array.from({ length: REQUESTS }, (_, i) => new Promise((r) => setTimeout(r, i)).then(() => loadChat(base, key, 'graceful-model', i))),
      );
      const deadline = Date.now() + 20_000;
      while (engine.requests.length < REQUESTS / 4 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 2));
      assert.ok(engine.requests.length >= REQUESTS / 4, 'the engine received requests before the stop');
      srv.kill('SIGTERM');
      const results = await outcomes;
      const log = launched.log();
      assert.equal(await exited, 0, log);

      const inFlight = /SIGTERM: stopping; waiting for (\d+) in-flight/.exec(log);
      assert.ok(inFlight && Number(inFlight[1]) > 0, `the stop began with requests in flight:\n${log}`);
      const complete = results.filter((r) => r.complete);
      assert.ok(complete.length >= REQUESTS / 4, `${complete.length} complete responses`);
      // Graceful: a request either never got in (refused or closed before it was read) or was answered in full.
      const started = results.filter((r) => r.status !== undefined);
      assert.deepEqual(
        started.filter((r) => !r.complete).map((r) => `${r.status} ${r.error}`),
        [],
        'every response that started finished',
      );
      assert.equal(engine.openStreams, 0);
      t.diagnostic(`${inFlight[1]} in flight at SIGTERM; ${complete.length} answered, ${REQUESTS - started.length} never got in`);

      const store = await openStore({ databaseUrl: env.DATABASE_URL, dataDir });
      try {
        const rows = await store.all<{ request_id: string; usd: number; diem: number; created_at: number }>(
          'SELECT request_id, usd, diem, created_at FROM usage WHERE account_id = $1',
          [accountId],
        );
        const byId = new Map(rows.map((r) => [r.request_id, r]));
        for (const r of complete) {
          const row = byId.get(r.requestId!);
          assert.ok(row, `usage row for ${r.requestId}`);
          assert.deepEqual({ usd: Number(row.usd) / 1e6, diem: Number(row.diem) / 1e6 }, r.cost, `charged what ${r.requestId} reported`);
        }
        // Nothing was billed for a request the client did not see answered.
        assert.equal(rows.length, complete.length);

        const account = await store.get<{ usd: number; usd_held: number; diem: number; diem_held: number; diem_daily: number; diem_epoch: string }>(
          'SELECT usd, usd_held, diem, diem_held, diem_daily, diem_epoch FROM accounts WHERE id = $1',
          [accountId],
        );
        const granted = await store.get<{ usd: number }>('SELECT SUM(usd) AS usd FROM credit_grants WHERE account_id = $1', [accountId]);
        const usdSpent = rows.reduce((s, r) => s + Number(r.usd), 0);
        assert.equal(Number(granted!.usd), 25_000_000);
        assert.equal(Number(account!.usd) + usdSpent, Number(granted!.usd));
        assert.deepEqual([Number(account!.usd_held), Number(account!.diem_held)], [0, 0]);
        assert.equal(Number((await store.get<{ n: number }>('SELECT COUNT(*) AS n FROM holds'))!.n), 0);
        // DIEM: today's allowance is what is left plus what today's rows spent (a run across midnight started over).
        const epochStart = Date.parse(`${account!.diem_epoch}T00:00:00Z`);
        const diemToday = rows.filter((r) => r.created_at >= epochStart && r.created_at < epochStart + DAY).reduce((s, r) => s + Number(r.diem), 0);
        assert.equal(Number(account!.diem) + diemToday, Number(account!.diem_daily));
        assert.ok(rows.some((r) => Number(r.diem) > 0) && usdSpent > 0, 'both currencies were spent');
      } finally {
        await store.close();
      }
    });
  });
}
