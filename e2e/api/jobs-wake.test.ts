// A job queued on a busy instance starts on an idle one at once, not at that one's next poll: the instances nudge each
// other (lib/db/wake-channel.ts) over Redis where it is configured, else over PostgreSQL's LISTEN/NOTIFY. Each
// instance has one worker and polls once a minute, so only the nudge can start the second job within seconds.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { openStore } from '../../lib/db/open.ts';
import type { Store } from '../../lib/db/store.ts';
import { createTestDatabase } from '../support/pg.ts';
import { lagoonCliSync, type ServerProcess, startServers, stopServers } from '../support/processes.ts';
import { type FakeOpenAIVideos, fakeVideoModel, startFakeOpenAIVideos } from '../support/video-upstreams.ts';

interface Row {
  id: string;
  status: string;
  lease_owner: string | null;
  created_at: number;
  started_at: number | null;
}

for (const via of ['postgres', 'redis'] as const)
  describe(`jobs wake the other instances (${via})`, () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lagoon-jobs-wake-'));
    let upstream: FakeOpenAIVideos;
    let db: { url: string; drop(): Promise<void> };
    let store: Store;
    let servers: ServerProcess[] = [];
    let env: Record<string, string>;
    let key: string;

    before(async () => {
      upstream = await startFakeOpenAIVideos();
      db = await createTestDatabase();
      const models = path.join(dir, 'models.json');
      fs.writeFileSync(
        models,
        JSON.stringify({ models: [fakeVideoModel(upstream.url, { id: 'held-video', resolution: '240p', aspectRatio: '1:1', pollMs: 30 })] }),
      );
      env = {
        DATABASE_URL: db.url,
        ...(via === 'redis' ? { REDIS_URL: 'redis://127.0.0.1:6379', LAGOON_REDIS_PREFIX: `lagoon-test-${randomUUID()}` } : {}),
        LAGOON_MODELS: models,
        LAGOON_NO_APP: '1',
        LAGOON_DATA_DIR: dir,
        LAGOON_JOB_WORKERS: '1',
        LAGOON_JOB_POLL_MS: '60000',
      };
      servers = await startServers(2, env);
      const cli = (...args: string[]) => lagoonCliSync({ ...process.env, ...env }, ...args);
      const account = cli('account', 'create', '--name', 'wake');
      key = cli('key', 'create', '--account', account, '--type', 'INFERENCE');
      cli('credit', 'grant', '--account', account, '--usd', '5');
      store = await openStore({ databaseUrl: db.url, dataDir: dir });
    });
    after(async () => {
      await stopServers(servers);
      await store?.close();
      await upstream.close();
      await db.drop();
      fs.rmSync(dir, { recursive: true, force: true });
    });

    const queue = async (server: ServerProcess, prompt: string) => {
      const res = await fetch(`${server.base}/video/queue`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: JSON.stringify({ model: 'held-video', prompt, duration: '4s' }),
      });
      assert.equal(res.status, 200, await res.clone().text());
      return ((await res.json()) as { queue_id: string }).queue_id;
    };
    const row = async (id: string) => (await store.get<Row>('SELECT id, status, lease_owner, created_at, started_at FROM jobs WHERE id = $1', [id])) as Row;
    const until = async (id: string, ok: (r: Row) => boolean, withinMs: number, what: string) => {
      const deadline = Date.now() + withinMs;
      for (;;) {
        const r = await row(id);
        if (ok(r)) return r;
        if (Date.now() > deadline) throw new Error(`${what}: not within ${withinMs} ms (${JSON.stringify(r)})`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    };

    test('the second job, queued where the only worker is busy, starts on the other instance within seconds', async () => {
      const first = await queue(servers[0], 'a long one [[hold]]');
      const a = await until(first, (r) => r.status === 'running', 10_000, 'the first job starts where it was queued');
      const second = await queue(servers[0], 'the next one [[hold]]');
      const b = await until(second, (r) => r.status === 'running', 10_000, 'the second job starts on the idle instance');
      assert.notEqual(b.lease_owner, a.lease_owner, 'the other instance took it');
      const waited = Number(b.started_at) - Number(b.created_at);
      assert.ok(waited < 5_000, `started ${waited} ms after it was queued (the poll is 60 s)`);
      // Released as they reach the upstream (the second job's request may still be on its way).
      const releasing = setInterval(() => {
        for (const v of upstream.videos.values()) upstream.release(v.id);
      }, 50);
      try {
        await until(first, (r) => r.status === 'succeeded', 60_000, 'the first job ends');
        await until(second, (r) => r.status === 'succeeded', 60_000, 'the second job ends');
      } finally {
        clearInterval(releasing);
      }
    });
  });
