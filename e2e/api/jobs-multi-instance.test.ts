// Two server processes on one PostgreSQL database and one media folder share a queue of 20 video jobs (on the
// OpenAI videos fake): both instances run some, none is run twice (one upstream video per job, one attempt each),
// each is billed once, and any instance serves any job's media.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { openStore } from '../../lib/db/open.ts';
import { createTestDatabase } from '../support/pg.ts';
import { lagoonCliSync, type ServerProcess, startServers, stopServers } from '../support/processes.ts';
import { probeClip, retrieveOnce } from '../support/video.ts';
import { type FakeOpenAIVideos, fakeVideoModel, startFakeOpenAIVideos } from '../support/video-upstreams.ts';

const JOBS = 20;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lagoon-jobs-multi-'));
let upstream: FakeOpenAIVideos;
let db: { url: string; drop(): Promise<void> };
let servers: ServerProcess[] = [];
let env: Record<string, string>;

const cli = (...args: string[]) => lagoonCliSync({ ...process.env, ...env }, ...args);

before(async () => {
  upstream = await startFakeOpenAIVideos();
  db = await createTestDatabase();
  const models = path.join(dir, 'models.json');
  const model = fakeVideoModel(upstream.url, {
    id: 'shared-video',
    name: 'Shared upstream video',
    perSecondUsd: 0.01,
    resolution: '240p',
    aspectRatio: '1:1',
    pollMs: 30,
  });
  fs.writeFileSync(models, JSON.stringify({ models: [model] }));
  env = {
    DATABASE_URL: db.url,
    LAGOON_MODELS: models,
    LAGOON_NO_APP: '1',
    // One data dir, so one media folder for both (as a shared mount would be).
    LAGOON_DATA_DIR: dir,
    LAGOON_JOB_WORKERS: '2',
    LAGOON_JOB_POLL_MS: '50',
    LAGOON_MAX_JOBS_PER_ACCOUNT: String(JOBS),
  };
  servers = await startServers(2, env);
});
after(async () => {
  await stopServers(servers);
  await upstream.close();
  await db.drop();
  fs.rmSync(dir, { recursive: true, force: true });
});

test(`two instances share a queue of ${JOBS} jobs: each runs once, on either instance, billed once; media served by both`, async () => {
  const account = cli('account', 'create', '--name', 'shared');
  const key = cli('key', 'create', '--account', account, '--type', 'INFERENCE');
  cli('credit', 'grant', '--account', account, '--usd', '1');
  const ids = await Promise.all(
    Array.from({ length: JOBS }, async (_, i) => {
      const res = await fetch(`${servers[i % 2].base}/video/queue`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: JSON.stringify({ model: 'shared-video', prompt: `job ${i}`, duration: '4s' }),
      });
      assert.equal(res.status, 200, await res.clone().text());
      return ((await res.json()) as { queue_id: string }).queue_id;
    }),
  );

  const store = await openStore({ databaseUrl: db.url, dataDir: dir });
  try {
    let jobs: { id: string; status: string; billing: string; attempts: number; lease_owner: string }[] = [];
    for (let i = 0; i < 1200; i++) {
      jobs = await store.all('SELECT id, status, billing, attempts, lease_owner FROM jobs');
      if (jobs.length === JOBS && jobs.every((j) => j.billing === 'settled')) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.deepEqual(
      jobs.map((j) => [j.status, j.billing, Number(j.attempts)]),
      Array.from({ length: JOBS }, () => ['succeeded', 'settled', 1]),
    );
    assert.equal(new Set(jobs.map((j) => j.lease_owner)).size, 2, 'both instances ran jobs');
    // None run twice: one upstream video per job.
    const prompts = [...upstream.videos.values()].map((v) => v.prompt).sort();
    assert.deepEqual(prompts, Array.from({ length: JOBS }, (_, i) => `job ${i}`).sort());

    const usage = await store.all<{ request_id: string; quantity: number; usd: number }>('SELECT request_id, quantity, usd FROM usage WHERE account_id = $1', [
      account,
    ]);
    assert.deepEqual(usage.map((u) => u.request_id).sort(), [...ids].sort());
    assert.ok(usage.every((u) => Number(u.quantity) === 4 && Number(u.usd) === 40_000));
    const a = await store.get<{ usd: number; usd_held: number }>('SELECT usd, usd_held FROM accounts WHERE id = $1', [account]);
    assert.deepEqual([Number(a!.usd), Number(a!.usd_held)], [1_000_000 - JOBS * 40_000, 0]);
    assert.equal(Number((await store.get<{ n: number }>('SELECT COUNT(*) AS n FROM holds'))!.n), 0);

    // Either instance serves any job's clip (the media folder is shared).
    for (const [i, id] of ids.entries()) {
      const r = await retrieveOnce(servers[(i + 1) % 2].base, { authorization: `Bearer ${key}` }, { model: 'shared-video', queue_id: id });
      assert.equal(r.contentType, 'video/mp4', JSON.stringify(r.json));
      if (i === 0) assert.deepEqual([(await probeClip(r.bytes!)).video?.width, Math.round((await probeClip(r.bytes!)).duration)], [240, 4]);
    }
  } finally {
    await store.close();
  }
});
