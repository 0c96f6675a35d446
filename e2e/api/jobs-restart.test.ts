// Jobs survive their server. A real server (scripts/serve.ts) runs a video job on an upstream (the OpenAI videos
// fake, which holds it until the test lets it finish) with a demo job queued behind it, and is killed with SIGKILL.
// Restarted on the same store, it takes the running job over (SQLite at once; PostgreSQL once the job's lease has
// run out), follows the same upstream video from the checkpoint instead of creating another, runs the queued job,
// and bills each exactly once; the holds were never swept as orphans meanwhile. Then a graceful stop hands a running
// job back to the queue, and the next server finishes it.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { openStore } from '../../lib/db/open.ts';
import type { Store } from '../../lib/db/store.ts';
import { catalogueModel } from '../support/harness.ts';
import { createTestDatabase } from '../support/pg.ts';
import { type LoggedServer, lagoonCli, startLoggedServer } from '../support/processes.ts';
import { probeClip, retrieveOnce, retrieveWhenDone } from '../support/video.ts';
import { type FakeOpenAIVideos, fakeVideoModel, startFakeOpenAIVideos } from '../support/video-upstreams.ts';

const demoModel = catalogueModel('lagoon-demo-video');
// One job at a time; short job leases and instance leases, so takeovers and the hold sweep happen within the test.
const TIMES = {
  LAGOON_JOB_WORKERS: '1',
  LAGOON_JOB_LEASE_MS: '1000',
  LAGOON_JOB_POLL_MS: '100',
  LAGOON_HEARTBEAT_MS: '200',
  LAGOON_HOLD_LEASE_MS: '1000',
  LAGOON_HOLD_SWEEP_MS: '250',
};

const count = async (store: Store, sql: string, params: string[] = []) => Number((await store.get<{ n: number }>(sql, params))?.n ?? 0);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

for (const backend of ['sqlite', 'postgres'] as const) {
  describe(`video jobs across a kill -9 on ${backend}`, () => {
    let upstream: FakeOpenAIVideos;
    let dataDir: string;
    let env: NodeJS.ProcessEnv;
    let dropDb = async () => {};
    const servers: LoggedServer[] = [];

    before(async () => {
      upstream = await startFakeOpenAIVideos();
      dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lagoon-jobs-restart-'));
      const catalogue = path.join(dataDir, 'models.json');
      fs.writeFileSync(catalogue, JSON.stringify({ models: [fakeVideoModel(upstream.url), demoModel] }));
      env = { ...process.env, ...TIMES, LAGOON_NO_APP: '1', LAGOON_DATA_DIR: dataDir, LAGOON_MODELS: catalogue, HOST: '127.0.0.1', PORT: '0' };
      if (backend === 'postgres') {
        const db = await createTestDatabase();
        env.DATABASE_URL = db.url;
        dropDb = db.drop;
      }
    });
    after(async () => {
      for (const s of servers) if (s.proc.exitCode === null && s.proc.signalCode === null) s.proc.kill('SIGKILL');
      await upstream.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
      await dropDb();
    });

    const cli = (...args: string[]) => lagoonCli(env, ...args);
    const serve = async () => {
      const s = await startLoggedServer(env);
      servers.push(s);
      return s;
    };
    const queue = async (s: LoggedServer, key: string, body: Record<string, unknown>) => {
      const res = await fetch(`${s.origin}/api/v1/video/queue`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: JSON.stringify(body),
      });
      assert.equal(res.status, 200, await res.clone().text());
      return ((await res.json()) as { queue_id: string }).queue_id;
    };
    /** Waits until the upstream has the video of this prompt, and the job reports a running attempt. */
    const untilRunning = async (s: LoggedServer, key: string, id: string, prompt: string) => {
      for (let i = 0; i < 400; i++) {
        const r = await retrieveOnce(`${s.origin}/api/v1`, { authorization: `Bearer ${key}` }, { model: 'held-video', queue_id: id });
        const created = [...upstream.videos.values()].find((v) => v.prompt === prompt);
        if (created && r.json?.execution_duration > 0) return created;
        await sleep(50);
      }
      throw new Error(`job ${id} did not start:\n${s.log()}`);
    };

    test('SIGKILL mid-job, restart: the job is taken over from its checkpoint, finishes once, and is billed once', async () => {
      const accountId = await cli('account', 'create', '--name', 'jobs');
      const key = await cli('key', 'create', '--account', accountId, '--type', 'INFERENCE');
      await cli('credit', 'grant', '--account', accountId, '--usd', '5');

      const first = await serve();
      const a = await queue(first, key, { model: 'held-video', prompt: 'survive [[hold]]', duration: 4 });
      const b = await queue(first, key, { model: 'lagoon-demo-video', prompt: 'queued behind', duration: 3, resolution: '256p' });
      const video = await untilRunning(first, key, a, 'survive [[hold]]');
      first.proc.kill('SIGKILL');
      assert.equal(await first.exited, null, 'killed, not exited');

      const store = await openStore({ databaseUrl: env.DATABASE_URL, dataDir });
      try {
        const rows = await store.all<{ id: string; status: string; billing: string }>('SELECT id, status, billing FROM jobs ORDER BY created_at');
        assert.deepEqual(
          rows.map((r) => [r.id, r.status, r.billing]),
          [
            [a, 'running', 'held'],
            [b, 'queued', 'held'],
          ],
        );
        if (backend === 'postgres') assert.equal(await count(store, 'SELECT COUNT(*) AS n FROM holds'), 2, 'the killed instance left both holds');

        const second = await serve();
        // Longer than the instance lease and several sweeps: the dead instance's job holds must still be there.
        await sleep(2_000);
        if (backend === 'postgres') {
          // The second instance may already have run the queued job to its end (its hold then settled): what must
          // hold is that no job still on credit lost its hold. One statement, so one snapshot of holds and jobs.
          const now = await store.get<{ holds: number; a: number; b: number; u: number }>(
            `SELECT (SELECT COUNT(*) FROM holds) AS holds, (SELECT COUNT(*) FROM jobs WHERE id = $2 AND billing = 'held') AS a,
               (SELECT COUNT(*) FROM jobs WHERE id = $3 AND billing = 'held') AS b, usd_held AS u FROM accounts WHERE id = $1`,
            [accountId, a, b],
          );
          assert.equal(Number(now!.a), 1, 'the taken-over job is still on credit');
          assert.equal(Number(now!.holds), 1 + Number(now!.b), `job holds are not orphans:\n${second.log()}`);
          assert.equal(Number(now!.u), 400_000 + 30_000 * Number(now!.b));
        }
        // The job is running again (taken over), on the same upstream video.
        const r = await retrieveOnce(`${second.origin}/api/v1`, { authorization: `Bearer ${key}` }, { model: 'held-video', queue_id: a });
        assert.equal(r.json?.status, 'PROCESSING', JSON.stringify(r.json));
        upstream.release(video.id);

        const doneA = await retrieveWhenDone(`${second.origin}/api/v1`, key, 'held-video', a);
        assert.equal(doneA.contentType, 'video/mp4', `${JSON.stringify(doneA.json)}\n${second.log()}`);
        assert.equal(Math.round((await probeClip(doneA.bytes!)).duration), 4);
        const doneB = await retrieveWhenDone(`${second.origin}/api/v1`, key, 'lagoon-demo-video', b);
        assert.equal(doneB.contentType, 'video/mp4', JSON.stringify(doneB.json));
        assert.equal([...upstream.videos.values()].filter((v) => v.prompt === 'survive [[hold]]').length, 1, 'one upstream video, resumed');

        // Graceful stop mid-job: the job goes back to the queue (not failed, not an attempt), its hold stays.
        const c = await queue(second, key, { model: 'held-video', prompt: 'handed back [[hold]]', duration: 4 });
        const cVideo = await untilRunning(second, key, c, 'handed back [[hold]]');
        second.proc.kill('SIGTERM');
        assert.equal(await second.exited, 0, second.log());
        const handed = await store.get<{ status: string; billing: string; attempts: number }>('SELECT status, billing, attempts FROM jobs WHERE id = $1', [c]);
        assert.deepEqual({ ...handed, attempts: Number(handed!.attempts) }, { status: 'queued', billing: 'held', attempts: 0 });
        const third = await serve();
        await untilRunning(third, key, c, 'handed back [[hold]]');
        upstream.release(cVideo.id);
        const doneC = await retrieveWhenDone(`${third.origin}/api/v1`, key, 'held-video', c);
        assert.equal(doneC.contentType, 'video/mp4');
        third.proc.kill('SIGTERM');
        assert.equal(await third.exited, 0, third.log());

        // Each job billed once, by its seconds; the balance is the grant less the usage rows; nothing held.
        const usage = await store.all<{ request_id: string; quantity: number; usd: number }>(
          'SELECT request_id, quantity, usd FROM usage WHERE account_id = $1',
          [accountId],
        );
        assert.deepEqual(
          usage.map((u) => [u.request_id, Number(u.quantity), Number(u.usd)]).sort(),
          [
            [a, 4, 400_000],
            [b, 3, 30_000],
            [c, 4, 400_000],
          ].sort(),
        );
        const account = await store.get<{ usd: number; usd_held: number; diem_held: number }>('SELECT usd, usd_held, diem_held FROM accounts WHERE id = $1', [
          accountId,
        ]);
        assert.deepEqual([Number(account!.usd), Number(account!.usd_held), Number(account!.diem_held)], [5_000_000 - 830_000, 0, 0]);
        assert.equal(await count(store, 'SELECT COUNT(*) AS n FROM holds'), 0);
        const jobs = await store.all<{ id: string; status: string; billing: string; attempts: number }>('SELECT id, status, billing, attempts FROM jobs');
        assert.deepEqual(Object.fromEntries(jobs.map((j) => [j.id, [j.status, j.billing, Number(j.attempts)]])), {
          [a]: ['succeeded', 'settled', 2],
          [b]: ['succeeded', 'settled', 1],
          [c]: ['succeeded', 'settled', 1],
        });
      } finally {
        await store.close();
      }
    });
  });
}
