// kill -9 under load: the real server (scripts/serve.ts, API only) gets concurrent chat requests, plain and streamed,
// some slow, and is killed with SIGKILL while they are in flight. It is restarted on the same store, and then the
// ledger must reconcile: every credit granted is either on the account or in a usage row, no hold outlives the
// sweep (PostgreSQL: the dead instance's holds are released by the restarted one once its lease runs out; SQLite:
// holds were in memory and died with the process), nothing stays held, and every complete 200 a client received has
// its usage row with the cost it reported (the settlement commits before the response's last bytes).
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { openStore } from '../../lib/db/open.ts';
import type { Store } from '../../lib/db/store.ts';
import { scriptedModel } from '../support/harness.ts';
import { loadChat } from '../support/load.ts';
import { lagoonCli, startLoggedServer } from '../support/processes.ts';
import { createTestDatabase } from '../support/pg.ts';
import { type ScriptedEngine, startScriptedEngine } from '../support/scripted-engine.ts';

const REQUESTS = 150;
const DAY = 86_400_000;
// Short leases so the test sees the sweep: a heartbeat every 200 ms, dead after 1 s, swept every 250 ms.
const LEASE = { LAGOON_HEARTBEAT_MS: '200', LAGOON_HOLD_LEASE_MS: '1000', LAGOON_HOLD_SWEEP_MS: '250' };

const count = async (store: Store, sql: string, params: (string | number)[] = []) => Number((await store.get<{ n: number }>(sql, params))?.n ?? 0);

for (const backend of ['sqlite', 'postgres'] as const) {
  describe(`kill -9 under load on ${backend}`, () => {
    let engine: ScriptedEngine;
    let dataDir: string;
    let env: NodeJS.ProcessEnv;
    let dropDb = async () => {};
    const servers: ChildProcess[] = [];

    before(async () => {
      engine = await startScriptedEngine({ name: 'crash' });
      dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lagoon-crash-'));
      const catalogue = path.join(dataDir, 'models.json');
      fs.writeFileSync(catalogue, JSON.stringify({ system_prompts: [], models: [scriptedModel('crash-model', engine.url, { traits: ['default'] })] }));
      env = { ...process.env, ...LEASE, LAGOON_NO_APP: '1', LAGOON_DATA_DIR: dataDir, LAGOON_MODELS: catalogue, HOST: '127.0.0.1', PORT: '0' };
      if (backend === 'postgres') {
        const db = await createTestDatabase();
        env.DATABASE_URL = db.url;
        dropDb = db.drop;
      }
    });
    after(async () => {
      for (const s of servers) if (s.exitCode === null && s.signalCode === null) s.kill('SIGKILL');
      await engine.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
      await dropDb();
    });

    const cli = (...args: string[]) => lagoonCli(env, ...args);

    async function serve() {
      const server = await startLoggedServer(env);
      servers.push(server.proc);
      return { ...server, base: server.origin };
    }

    test(`SIGKILL with requests in flight, restart: no hold outlives the sweep, every complete 200 is billed, the ledger reconciles`, async (t) => {
      const accountId = await cli('account', 'create', '--name', 'crash');
      const key = await cli('key', 'create', '--account', accountId, '--type', 'INFERENCE');
      await cli('credit', 'grant', '--account', accountId, '--usd', '20');
      await cli('credit', 'grant', '--account', accountId, '--usd', '5');
      // A small DIEM allowance runs out during the load, so charges move from DIEM to USD under concurrency.
      await cli('diem', 'set', '--account', accountId, '--daily', '0.002');

      const first = await serve();
      // The requests go out over about 300 ms; the kill comes once the engine has had 40% of them and some answers
      // are complete, so some requests have just finished, some stream, some wait for a slow answer.
      let completed = 0;
      const outcomes = Promise.all(
        Array.from({ length: REQUESTS }, (_, i) =>
          new Promise((r) => setTimeout(r, 2 * i)).then(() => loadChat(first.base, key, 'crash-model', i)).then((o) => (o.complete && completed++, o)),
        ),
      );
      const deadline = Date.now() + 20_000;
      while ((engine.requests.length < REQUESTS * 0.4 || completed < 10) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 1));
      first.proc.kill('SIGKILL');
      const killedAt = Date.now();
      const results = await outcomes;
      assert.equal(await first.exited, null, 'killed, not exited');

      const store = await openStore({ databaseUrl: env.DATABASE_URL, dataDir });
      try {
        const complete = results.filter((r) => r.complete);
        const cut = results.filter((r) => r.status === 200 && !r.complete).length;
        const justBefore = complete.filter((r) => r.at! > killedAt - 120).length;
        const orphaned = await count(store, 'SELECT COUNT(*) AS n FROM holds');
        assert.ok(complete.length >= 10 && complete.length < REQUESTS, `${complete.length} complete answers before the kill`);
        if (backend === 'postgres') assert.ok(orphaned > 0, 'the killed instance left holds behind');

        // Restart on the same store; the dead instance's holds go once its lease has run out (PostgreSQL), or were
        // never anywhere but its memory (SQLite).
        const second = await serve();
        const restartedAt = Date.now();
        let left = Number.POSITIVE_INFINITY;
        // From the restart (its start-up under load is the machine's, not the sweep's): lease 1 s + a 0.25 s sweep.
        const sweepDeadline = restartedAt + 8_000;
        while (Date.now() < sweepDeadline) {
          left = await count(store, 'SELECT COUNT(*) AS n FROM holds');
          const held = await store.get<{ u: number; d: number }>('SELECT usd_held AS u, diem_held AS d FROM accounts WHERE id = $1', [accountId]);
          if (left === 0 && Number(held!.u) === 0 && Number(held!.d) === 0) break;
          await new Promise((r) => setTimeout(r, 25));
        }
        const sweptAt = Date.now();
        assert.equal(left, 0, `holds left ${sweepDeadline - restartedAt} ms after the restart:\n${second.log()}`);
        // Lease 1 s + one sweep interval 0.25 s after the restart, with room for a loaded machine.
        assert.ok(sweptAt - restartedAt < 5_000, `released ${sweptAt - restartedAt} ms after the restart (${sweptAt - killedAt} ms after the kill)`);

        // The restarted server serves, and stops gracefully.
        const after = await Promise.all(Array.from({ length: 6 }, (_, i) => loadChat(second.base, key, 'crash-model', 1000 + i)));
        assert.ok(
          after.every((r) => r.complete),
          'the restarted server answers',
        );
        second.proc.kill('SIGTERM');
        assert.equal(await second.exited, 0, second.log());

        const rows = await store.all<{ request_id: string; usd: number; diem: number; created_at: number }>(
          'SELECT request_id, usd, diem, created_at FROM usage WHERE account_id = $1',
          [accountId],
        );
        const byId = new Map(rows.map((r) => [r.request_id, r]));
        // Every complete 200 has its usage row, charged what the client was told.
        for (const r of [...complete, ...after]) {
          const row = byId.get(r.requestId!);
          assert.ok(row, `usage row for ${r.requestId}`);
          assert.deepEqual({ usd: Number(row.usd) / 1e6, diem: Number(row.diem) / 1e6 }, r.cost, `charged what ${r.requestId} reported`);
        }
        // Rows beyond them: streams cut by the kill after their settlement committed (billed for what was produced).
        const billedUnseen = rows.length - complete.length - after.length;
        assert.ok(billedUnseen >= 0 && billedUnseen <= cut + results.filter((r) => r.status === undefined).length);

        const account = await store.get<{ usd: number; usd_held: number; diem: number; diem_held: number; diem_daily: number; diem_epoch: string }>(
          'SELECT usd, usd_held, diem, diem_held, diem_daily, diem_epoch FROM accounts WHERE id = $1',
          [accountId],
        );
        const granted = await store.get<{ usd: number }>('SELECT SUM(usd) AS usd FROM credit_grants WHERE account_id = $1', [accountId]);
        const usdSpent = rows.reduce((s, r) => s + Number(r.usd), 0);
        assert.equal(Number(granted!.usd), 25_000_000);
        assert.equal(Number(account!.usd) + usdSpent, Number(granted!.usd), 'USD: the balance is the grants less the usage rows');
        assert.deepEqual([Number(account!.usd_held), Number(account!.diem_held)], [0, 0]);
        assert.equal(await count(store, 'SELECT COUNT(*) AS n FROM holds'), 0);
        const epochStart = Date.parse(`${account!.diem_epoch}T00:00:00Z`);
        const diemToday = rows.filter((r) => r.created_at >= epochStart && r.created_at < epochStart + DAY).reduce((s, r) => s + Number(r.diem), 0);
        assert.equal(Number(account!.diem) + diemToday, Number(account!.diem_daily), 'DIEM: the allowance is what is left plus what today spent');
        if (backend === 'postgres') assert.equal(await count(store, 'SELECT COUNT(*) AS n FROM instances'), 0, 'no heartbeat after the graceful stop');
        // The operator's check agrees: every balance is its ledger entries less its charges (exit 0, none differ).
        assert.match(await cli('ledger', 'reconcile'), /^\d+ accounts, 0 difference\(s\)$/);
        t.diagnostic(
          `${engine.requests.length} reached the engine; ${complete.length} complete before the kill (${justBefore} within 120 ms of it), ${cut} cut mid-response; ` +
            `${orphaned} holds left by the killed process; none ${sweptAt - killedAt} ms after the kill (${sweptAt - restartedAt} ms after the restart); ` +
            `${billedUnseen} billed responses the client did not see complete`,
        );
      } finally {
        await store.close();
      }
    });
  });
}
