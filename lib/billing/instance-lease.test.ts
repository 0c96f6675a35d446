// Instance leases on a shared database: the holds of an instance that stopped renewing its heartbeat are released by
// a live one, exactly once, and a settlement that arrives late from that instance still bills exactly once.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Backend, freshStore } from '../../e2e/support/stores.ts';
import { createAccount } from '../accounts/accounts.ts';
import type { Store } from '../db/store.ts';
import { InstanceLease } from './instance-lease.ts';
import { getBalances, grantUsd } from './ledger.ts';
import { Ledger } from './ledger-service.ts';

const usage = { modelId: 'm', endpoint: '/chat/completions', promptTokens: 10, completionTokens: 5, cachedTokens: 0 };
const TIMES = { heartbeatMs: 60_000, leaseMs: 45_000, sweepMs: 60_000 };
const estimate = { usd: 100_000, diem: 100_000 };

// Table holds are PostgreSQL's; the SQL is portable, so the embedded file runs the same checks.
for (const backend of ['postgres', 'sqlite'] as Backend[]) {
  describe(`instance leases on ${backend}`, () => {
    let store: Store;
    let dispose: () => Promise<void>;
    before(async () => ({ store, dispose } = await freshStore(backend)));
    after(() => dispose());

    /** Two instances, each with its ledger; `dies` stops renewing (its heartbeat is backdated past the lease). */
    async function pair() {
      const [dies, lives] = [new InstanceLease(store, TIMES), new InstanceLease(store, TIMES)];
      await dies.start();
      await lives.start();
      const ledgers = {
        dies: new Ledger(store, { soleWriter: false, instanceId: dies.id }),
        lives: new Ledger(store, { soleWriter: false, instanceId: lives.id }),
      };
      const crash = () => store.run('UPDATE instances SET heartbeat_at = heartbeat_at - 60000 WHERE id = $1', [dies.id]);
      return { dies, lives, ledgers, crash, stop: () => Promise.all([dies.stop(), lives.stop()]) };
    }

    const heldRows = async (accountId: string) =>
      Number((await store.get<{ n: number }>('SELECT COUNT(*) AS n FROM holds WHERE account_id = $1', [accountId]))!.n);

    test("a live instance's holds are left alone; a dead one's are released once, to the micro-unit", async () => {
      const p = await pair();
      const a = await createAccount(store, 'lease');
      await grantUsd(store, a.id, 1_000_000);
      for (let i = 0; i < 3; i++) await p.ledgers.dies.reserve({ accountId: a.id, keyId: null, estimate });
      const kept = await p.ledgers.lives.reserve({ accountId: a.id, keyId: null, estimate });
      assert.equal((await p.lives.sweep()).holds, 0, 'both alive: nothing released');
      await p.crash();
      assert.deepEqual(await p.lives.sweep(), { holds: 3, accounts: 1 });
      assert.deepEqual(await p.lives.sweep(), { holds: 0, accounts: 0 }, 'released once');
      const b = await getBalances(store, a.id);
      assert.deepEqual([b.usd, b.usdHeld], [1_000_000, 100_000], "only the live instance's hold is left");
      assert.equal(await heldRows(a.id), 1);
      await p.ledgers.lives.settle(kept.hold, { usd: 40_000, diem: 40_000 }, usage).committed;
      assert.deepEqual(Object.values(await getBalances(store, a.id)).slice(0, 2), [960_000, 0]);
      await p.stop();
    });

    test('a settlement from an instance taken for dead, after its hold was swept, bills once; a second one nothing', async () => {
      const p = await pair();
      const a = await createAccount(store, 'zombie');
      await grantUsd(store, a.id, 1_000_000);
      const { hold } = await p.ledgers.dies.reserve({ accountId: a.id, keyId: null, estimate });
      await p.crash();
      assert.equal((await p.lives.sweep()).holds, 1);
      assert.deepEqual(await p.ledgers.dies.settle(hold, { usd: 30_000, diem: 30_000 }, usage).committed, { usd: 30_000, diem: 0 });
      assert.deepEqual(await p.ledgers.dies.settle(hold, { usd: 30_000, diem: 30_000 }, usage).committed, { usd: 0, diem: 0 });
      const b = await getBalances(store, a.id);
      assert.deepEqual([b.usd, b.usdHeld], [970_000, 0]);
      const rows = await store.all<{ usd: number }>('SELECT usd FROM usage WHERE account_id = $1', [a.id]);
      assert.deepEqual(
        rows.map((r) => Number(r.usd)),
        [30_000],
      );
      await p.stop();
    });

    test('the sweep racing settlements and releases of the same holds: every hold ends once, the ledger reconciles', async () => {
      const p = await pair();
      const a = await createAccount(store, 'race');
      await grantUsd(store, a.id, 5_000_000);
      const holds = [];
      for (let i = 0; i < 30; i++) holds.push((await p.ledgers.dies.reserve({ accountId: a.id, keyId: null, estimate })).hold);
      await p.crash();
      await Promise.all([
        p.lives.sweep(),
        p.lives.sweep(),
        ...holds.map((h, i) =>
          i % 3 === 0
            ? p.ledgers.dies.release(h)
            : i % 3 === 1
              ? p.ledgers.dies.settle(h, { usd: 10_000 + i, diem: 10_000 + i }, usage).committed
              : Promise.resolve(),
        ),
      ]);
      await p.lives.sweep();
      const b = await getBalances(store, a.id);
      const rows = await store.all<{ usd: number }>('SELECT usd FROM usage WHERE account_id = $1', [a.id]);
      assert.equal(rows.length, 10, 'every settlement recorded');
      assert.equal(b.usd + rows.reduce((s, r) => s + Number(r.usd), 0), 5_000_000);
      assert.deepEqual([b.usdHeld, b.diemHeld, await heldRows(a.id)], [0, 0, 0]);
      await p.stop();
    });

    test('a graceful stop deletes the heartbeat: what the instance still held is released by the next sweep', async () => {
      const p = await pair();
      const a = await createAccount(store, 'stopped');
      await grantUsd(store, a.id, 1_000_000);
      await p.ledgers.dies.reserve({ accountId: a.id, keyId: null, estimate });
      await p.dies.stop();
      assert.equal((await p.lives.sweep()).holds, 1);
      assert.equal((await getBalances(store, a.id)).usdHeld, 0);
      await p.lives.stop();
      assert.equal(Number((await store.get<{ n: number }>('SELECT COUNT(*) AS n FROM instances'))!.n), 0);
    });
  });
}
