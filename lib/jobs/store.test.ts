// The jobs table's claims and transitions on both stores: concurrent claimers (two pools on PostgreSQL, as two
// instances would be) take each job once; an expired lease is taken over and the old owner can no longer finish;
// the cap on active jobs holds; and the instance sweep leaves a job's hold alone until its billing closes.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { createTestDatabase } from '../../e2e/support/pg.ts';
import { BACKENDS, freshStore } from '../../e2e/support/stores.ts';
import { createAccount } from '../accounts/accounts.ts';
import { tableHolds } from '../billing/holds.ts';
import { sweepOrphanedHolds } from '../billing/instance-lease.ts';
import { openStore } from '../db/open.ts';
import type { Store } from '../db/store.ts';
import { JobStore } from './store.ts';

async function seed(store: Store, n: number) {
  const account = await createAccount(store, 'jobs');
  const jobs = new JobStore(store);
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const id = randomUUID();
    ids.push(id);
    const job = {
      id,
      kind: 'video',
      modelId: 'm',
      accountId: account.id,
      keyId: null,
      request: { i },
      quote: { usd: 10, diem: 10 },
      hold: { usd: 10, diem: 0 },
    };
    assert.equal(await jobs.insert(job, 1000), true);
  }
  return { accountId: account.id, ids, jobs };
}

for (const backend of BACKENDS) {
  describe(`jobs store on ${backend}`, () => {
    test('concurrent claimers take each job exactly once', async () => {
      // PostgreSQL: two pools on one database, as two instances would be; SQLite has one server per data dir.
      const db = backend === 'postgres' ? await createTestDatabase() : undefined;
      const { store, dispose } = db
        ? { store: await openStore({ databaseUrl: db.url, dataDir: '/nonexistent' }), dispose: async () => {} }
        : await freshStore(backend);
      const other = db ? await openStore({ databaseUrl: db.url, dataDir: '/nonexistent' }) : undefined;
      try {
        const { ids } = await seed(store, 30);
        const stores = [new JobStore(store), new JobStore(other ?? store)];
        const claimed: string[] = [];
        await Promise.all(
          Array.from({ length: 6 }, async (_, w) => {
            const js = stores[w % 2];
            for (;;) {
              const row = await js.claim(['video'], `owner-${w}`, 60_000);
              if (!row) return;
              assert.equal(row.attempts, 1);
              claimed.push(row.id);
            }
          }),
        );
        assert.deepEqual([...claimed].sort(), [...ids].sort());
        assert.equal(await stores[0].claim(['video'], 'late', 60_000), undefined);
        assert.equal(await stores[0].claim(['audio'], 'other-kind', 1), undefined);
      } finally {
        await other?.close();
        if (db) await store.close();
        await dispose();
        await db?.drop();
      }
    });

    test('an expired lease is taken over; the old owner can no longer renew, checkpoint or finish', async () => {
      const { store, dispose } = await freshStore(backend);
      try {
        const { ids, jobs } = await seed(store, 1);
        const first = await jobs.claim(['video'], 'a', 1);
        assert.equal(first?.id, ids[0]);
        let second;
        for (let i = 0; i < 100 && !second; i++) {
          await new Promise((resolve) => setTimeout(resolve, 5));
          second = await jobs.claim(['video'], 'b', 60_000);
        }
        assert.equal(second?.id, ids[0]);
        assert.equal(second?.attempts, 2);
        assert.equal(await jobs.renew(ids[0], 'a', 60_000), false);
        assert.equal(await jobs.checkpoint(ids[0], 'a', { x: 1 }), false);
        assert.equal(await jobs.succeed(ids[0], 'a', { path: 'video/x.mp4', type: 'video/mp4', bytes: 1 }, { usd: 1, diem: 0 }, 1), false);
        assert.equal(await jobs.fail(ids[0], 'a', { code: 'failed', message: 'late' }), false);
        assert.equal(await jobs.renew(ids[0], 'b', 60_000), true);
        assert.equal(await jobs.checkpoint(ids[0], 'b', { upstream: 'v1' }), true);
        assert.equal(await jobs.succeed(ids[0], 'b', { path: 'video/x.mp4', type: 'video/mp4', bytes: 1 }, { usd: 1, diem: 0 }, 1), true);
        const row = await jobs.get(ids[0]);
        assert.deepEqual([row?.status, row?.billing, row?.state, row?.lease_owner], ['succeeded', 'settling', '{"upstream":"v1"}', 'b']);
        assert.equal(await jobs.fail(ids[0], null, { code: 'cancelled', message: 'too late' }), false, 'a finished job is not cancelled');
        await jobs.billed(ids[0], 'settling');
        assert.equal((await jobs.get(ids[0]))?.billing, 'settled');
      } finally {
        await dispose();
      }
    });

    test('cancel fails a queued job once; graceful requeue gives the attempt back; the cap refuses past it', async () => {
      const { store, dispose } = await freshStore(backend);
      try {
        const { ids, jobs, accountId } = await seed(store, 3);
        assert.equal(await jobs.fail(ids[0], null, { code: 'cancelled', message: 'bye' }), true);
        assert.equal(await jobs.fail(ids[0], null, { code: 'cancelled', message: 'bye' }), false);
        const claimed = (await jobs.claim(['video'], 'o', 60_000))!;
        assert.ok([ids[1], ids[2]].includes(claimed.id), 'a queued job, not the cancelled one');
        assert.equal(await jobs.requeue(claimed.id, 'o'), true);
        const back = await jobs.get(claimed.id);
        assert.deepEqual([back?.status, back?.attempts], ['queued', 0]);
        assert.equal(await jobs.activeCount(store, accountId), 2);
        const extra = {
          id: randomUUID(),
          kind: 'video',
          modelId: 'm',
          accountId,
          keyId: null,
          request: {},
          quote: { usd: 1, diem: 1 },
          hold: { usd: 1, diem: 0 },
        };
        assert.equal(await jobs.insert(extra, 2), false);
        assert.equal(await jobs.insert(extra, 3), true);
      } finally {
        await dispose();
      }
    });

    if (backend === 'postgres') {
      test("the instance sweep leaves a job's hold alone until the job's billing closes", async () => {
        const { store, dispose } = await freshStore(backend);
        try {
          const { ids, jobs, accountId } = await seed(store, 2);
          // Both holds belong to an instance that never beat: dead. One is a job's, the other a plain request's.
          const holds = tableHolds(store, 'dead-instance');
          const plain = randomUUID();
          for (const requestId of [ids[0], plain]) {
            await store.tx((q) => holds.add(q, { requestId, accountId, keyId: null, usd: 5, diem: 0, createdAt: Date.now() }));
          }
          const swept = await sweepOrphanedHolds(store, 1);
          assert.equal(swept.holds, 1);
          const left = await store.all<{ request_id: string }>('SELECT request_id FROM holds');
          assert.deepEqual(
            left.map((r) => r.request_id),
            [ids[0]],
          );
          // Once the job's billing is closed (released), a hold still there is an orphan like any other.
          await jobs.fail(ids[0], null, { code: 'cancelled', message: 'x' });
          await jobs.billed(ids[0], 'releasing');
          assert.equal((await sweepOrphanedHolds(store, 1)).holds, 1);
          const a = await store.get<{ usd_held: number }>('SELECT usd_held FROM accounts WHERE id = $1', [accountId]);
          assert.equal(Number(a!.usd_held), 0);
        } finally {
          await dispose();
        }
      });
    }
  });
}
