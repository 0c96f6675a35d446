// The store, keys and ledger against both backends: the embedded SQLite file and a real PostgreSQL database.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { freshStore } from '../../e2e/support/stores.ts';
import { createTestDatabase } from '../../e2e/support/pg.ts';
import { createAccount } from '../accounts/accounts.ts';
import { accountKeys, authenticate } from '../auth/keys.ts';
import { sweepOrphanedHolds } from '../billing/instance-lease.ts';
import { getBalances, grantUsd, release, reserve, setDiemDaily, settle } from '../billing/ledger.ts';
import { toMicros } from '../billing/money.ts';
import { MIGRATIONS } from './migrations.ts';
import { migrate, openStore } from './open.ts';
import type { Store } from './store.ts';

const usage = { modelId: 'm', endpoint: '/chat/completions', promptTokens: 10, completionTokens: 5, cachedTokens: 0 };

for (const backend of ['sqlite', 'postgres'] as const) {
  describe(`store on ${backend}`, () => {
    let store: Store;
    let cleanup: () => Promise<void>;

    before(async () => {
      ({ store, dispose: cleanup } = await freshStore(backend));
    });
    after(() => cleanup());

    test('migrations are idempotent', async () => {
      await migrate(store);
      const rows = await store.all<{ version: number }>('SELECT version FROM schema_migrations');
      const numeric = (xs: number[]) => xs.sort((x, y) => x - y);
      assert.deepEqual(numeric(rows.map((r) => Number(r.version))), numeric(MIGRATIONS.map((m) => m.version)));
    });

    test('keys: created hashed, authenticated, expired and revoked ones refused', async () => {
      const a = await createAccount(store, 'keys');
      const keys = accountKeys(store, a.id);
      const { key, secret } = await keys.create({ type: 'ADMIN', description: 'ops' });
      const stored = await store.get<{ key_hash: string }>('SELECT key_hash FROM api_keys WHERE id = $1', [key.id]);
      assert.notEqual(stored?.key_hash, secret);
      assert.ok(!JSON.stringify(await store.all('SELECT * FROM api_keys')).includes(secret));
      assert.equal(key.last6, secret.slice(-6));
      const p = await authenticate(store, secret);
      assert.equal(p.accountId, a.id);
      assert.equal(p.keyType, 'ADMIN');
      await assert.rejects(authenticate(store, 'lgn_inf_nope'), { code: 'AUTHENTICATION_FAILED', status: 401 });
      await assert.rejects(authenticate(store, undefined), { status: 401 });
      const expired = await keys.create({ type: 'INFERENCE', expiresAt: Date.now() - 1000 });
      await assert.rejects(authenticate(store, expired.secret), { code: 'AUTHENTICATION_FAILED_INACTIVE_KEY', status: 401 });
      assert.equal(await keys.revoke(key.id), true);
      await assert.rejects(authenticate(store, secret), { status: 401 });
      assert.deepEqual(
        (await keys.listActive()).map((k) => k.id),
        [],
      );
    });

    test('key queries are scoped to their account', async () => {
      const a = await createAccount(store, 'a');
      const b = await createAccount(store, 'b');
      const { key } = await accountKeys(store, a.id).create({ type: 'INFERENCE' });
      assert.equal(await accountKeys(store, b.id).get(key.id), undefined);
      assert.equal(await accountKeys(store, b.id).revoke(key.id), false);
      assert.ok(await accountKeys(store, a.id).get(key.id));
    });

    test('reserve, settle and release keep balances exact', async () => {
      const a = await createAccount(store, 'ledger');
      await grantUsd(store, a.id, toMicros(1));
      const { hold } = await reserve(store, { accountId: a.id, keyId: null, estimate: { usd: 600_000, diem: 600_000 } });
      let b = await getBalances(store, a.id);
      assert.equal(b.usdHeld, 600_000);
      // Held by the request in flight: it may fit once that one settles (transient); more than the balance never will.
      await assert.rejects(reserve(store, { accountId: a.id, keyId: null, estimate: { usd: 500_000, diem: 500_000 } }), {
        code: 'CREDIT_HELD',
        status: 402,
      });
      await assert.rejects(reserve(store, { accountId: a.id, keyId: null, estimate: { usd: 1_500_000, diem: 1_500_000 } }), {
        code: 'INSUFFICIENT_BALANCE',
        status: 402,
      });
      const charged = await settle(store, hold, { usd: 250_000, diem: 250_000 }, usage);
      assert.deepEqual(charged, { usd: 250_000, diem: 0 });
      b = await getBalances(store, a.id);
      assert.equal(b.usd, 750_000);
      assert.equal(b.usdHeld, 0);
      // Settling twice charges nothing more.
      assert.deepEqual(await settle(store, hold, { usd: 250_000, diem: 250_000 }, usage), { usd: 0, diem: 0 });
      const r2 = await reserve(store, { accountId: a.id, keyId: null, estimate: { usd: 100_000, diem: 100_000 } });
      await release(store, r2.hold);
      b = await getBalances(store, a.id);
      assert.equal(b.usd, 750_000);
      assert.equal(b.usdHeld, 0);
      const rows = await store.all<{ usd: number }>('SELECT usd FROM usage WHERE account_id = $1', [a.id]);
      assert.deepEqual(
        rows.map((r) => Number(r.usd)),
        [250_000],
      );
    });

    test('DIEM is spent before USD, split when it runs out, and refills each UTC day', async () => {
      const a = await createAccount(store, 'diem');
      await grantUsd(store, a.id, toMicros(1));
      const day1 = Date.UTC(2026, 10, 22, 12);
      await setDiemDaily(store, a.id, 100_000, day1);
      const { hold } = await reserve(store, { accountId: a.id, keyId: null, estimate: { usd: 80_000, diem: 80_000 }, now: day1 });
      assert.deepEqual([hold.diem, hold.usd], [80_000, 0]);
      assert.deepEqual(await settle(store, hold, { usd: 80_000, diem: 80_000 }, usage, day1), { usd: 0, diem: 80_000 });
      // 20,000 DIEM left: a 60,000 charge takes all of it, and USD pays the uncovered two thirds.
      const r = await reserve(store, { accountId: a.id, keyId: null, estimate: { usd: 60_000, diem: 60_000 }, now: day1 });
      assert.deepEqual(await settle(store, r.hold, { usd: 60_000, diem: 60_000 }, usage, day1), { diem: 20_000, usd: 40_000 });
      let b = await getBalances(store, a.id, day1);
      assert.deepEqual([b.diem, b.usd], [0, 960_000]);
      b = await getBalances(store, a.id, day1 + 24 * 3600 * 1000);
      assert.equal(b.diem, 100_000);
    });

    test('concurrent reservations never overspend', async () => {
      const a = await createAccount(store, 'race');
      await grantUsd(store, a.id, 1_000_000);
      const results = await Promise.allSettled(
        Array.from({ length: 40 }, () => reserve(store, { accountId: a.id, keyId: null, estimate: { usd: 100_000, diem: 100_000 } })),
      );
      assert.equal(results.filter((r) => r.status === 'fulfilled').length, 10);
      const b = await getBalances(store, a.id);
      assert.equal(b.usdHeld, 1_000_000);
    });

    test('holds with no owner (from before instance leases) are released once over an hour old', async () => {
      const a = await createAccount(store, 'stale');
      await grantUsd(store, a.id, 1_000_000);
      await reserve(store, { accountId: a.id, keyId: null, estimate: { usd: 300_000, diem: 300_000 }, now: Date.now() - 2 * 3600_000 });
      await reserve(store, { accountId: a.id, keyId: null, estimate: { usd: 100_000, diem: 100_000 } });
      assert.equal((await sweepOrphanedHolds(store, 45_000)).holds, 1);
      assert.equal((await getBalances(store, a.id)).usdHeld, 100_000);
      assert.equal((await sweepOrphanedHolds(store, 45_000)).holds, 0);
    });
  });
}

describe('Ledger service', () => {
  test('in memory (embedded store): concurrent reservations and background settlements never overspend', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lagoon-ledger-'));
    const store = await openStore({ dataDir: dir });
    try {
      const { Ledger } = await import('../billing/ledger-service.ts');
      const ledger = new Ledger(store, { soleWriter: true });
      const a = await createAccount(store, 'mem');
      await grantUsd(store, a.id, 1_000_000);
      let admitted = 0;
      // Waves of reservations, each settled in the background at its full estimate.
      for (let wave = 0; wave < 4; wave++) {
        const results = await Promise.allSettled(
          Array.from({ length: 10 }, () => ledger.reserve({ accountId: a.id, keyId: null, estimate: { usd: 100_000, diem: 100_000 } })),
        );
        for (const r of results)
          if (r.status === 'fulfilled') {
            admitted++;
            void ledger.settle(r.value.hold, { usd: 100_000, diem: 100_000 }, usage);
          }
      }
      await ledger.drain();
      assert.equal(admitted, 10);
      const b = await getBalances(store, a.id);
      assert.equal(b.usd, 0);
    } finally {
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('two instances sharing PostgreSQL never overspend one account', async () => {
    const db = await createTestDatabase();
    const s1 = await openStore({ databaseUrl: db.url, dataDir: '/nonexistent' });
    const s2 = await openStore({ databaseUrl: db.url, dataDir: '/nonexistent' });
    try {
      const { Ledger } = await import('../billing/ledger-service.ts');
      const [l1, l2] = [new Ledger(s1, { soleWriter: false }), new Ledger(s2, { soleWriter: false })];
      const a = await createAccount(s1, 'shared');
      await grantUsd(s1, a.id, 1_000_000);
      const results = await Promise.allSettled(
        Array.from({ length: 30 }, (_, i) => (i % 2 ? l1 : l2).reserve({ accountId: a.id, keyId: null, estimate: { usd: 100_000, diem: 100_000 } })),
      );
      const held = results.filter((r) => r.status === 'fulfilled');
      assert.equal(held.length, 10);
      await Promise.all(
        held.map((r, i) => (i % 2 ? l1 : l2).settle((r as PromiseFulfilledResult<any>).value.hold, { usd: 100_000, diem: 100_000 }, usage).committed),
      );
      await Promise.all([l1.drain(), l2.drain()]);
      const b = await getBalances(s1, a.id);
      assert.deepEqual([b.usd, b.usdHeld], [0, 0]);
      assert.equal(Number((await s1.get<any>('SELECT COUNT(*) AS n FROM usage WHERE account_id = $1', [a.id])).n), 10);
    } finally {
      await s1.close();
      await s2.close();
      await db.drop();
    }
  });
});
