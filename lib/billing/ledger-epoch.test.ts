// The daily DIEM refill as settlements see it: the balance read is the only statement before the charge on an
// ordinary day, and the first step of a new UTC day refills the allowance once, before charging from it.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { BACKENDS, freshStore } from '../../e2e/support/stores.ts';
import { createAccount } from '../accounts/accounts.ts';
import type { Store } from '../db/store.ts';
import { getBalances, grantUsd, reserve, setDiemDaily, settle } from './ledger.ts';
import { diemEpoch } from './money.ts';

const DAY_MS = 86_400_000;
const usage = { modelId: 'm', endpoint: '/chat/completions', promptTokens: 10, completionTokens: 5, cachedTokens: 0 };

for (const backend of BACKENDS) {
  describe(`daily DIEM refill on ${backend}`, () => {
    let store: Store;
    let dispose: () => Promise<void>;
    before(async () => ({ store, dispose } = await freshStore(backend)));
    after(() => dispose());

    const row = async (id: string) =>
      (await store.get<{ usd: number; diem: number; diem_epoch: string }>('SELECT usd, diem, diem_epoch FROM accounts WHERE id = $1', [id]))!;

    test('a settlement on a new day charges the refilled allowance and refills it once', async () => {
      const today = Date.UTC(2026, 10, 24, 12);
      const a = await createAccount(store, 'epoch');
      await grantUsd(store, a.id, 1_000_000);
      await setDiemDaily(store, a.id, 500, today - DAY_MS);
      // Yesterday's allowance spent to the last micro-unit.
      await store.run('UPDATE accounts SET diem = 0, diem_epoch = $2 WHERE id = $1', [a.id, diemEpoch(today - DAY_MS)]);

      const { hold } = await reserve(store, { accountId: a.id, keyId: null, estimate: { usd: 300, diem: 300 }, now: today });
      assert.deepEqual([hold.diem, hold.usd], [300, 0], 'the reservation already counts the new day');
      const charged = await settle(store, hold, { usd: 200, diem: 200 }, usage, today);
      assert.deepEqual(charged, { usd: 0, diem: 200 });
      let r = await row(a.id);
      assert.deepEqual([Number(r.diem), r.diem_epoch, Number(r.usd)], [300, diemEpoch(today), 1_000_000]);

      // Later the same day: no second refill.
      const second = await reserve(store, { accountId: a.id, keyId: null, estimate: { usd: 100, diem: 100 }, now: today + 1000 });
      await settle(store, second.hold, { usd: 100, diem: 100 }, { ...usage }, today + 1000);
      r = await row(a.id);
      assert.equal(Number(r.diem), 200);
      assert.equal((await getBalances(store, a.id, today + 2000)).diem, 200);
    });

    test('reading the balances on a new day refills the row; the same day leaves it alone', async () => {
      const today = Date.UTC(2026, 10, 25, 8);
      const a = await createAccount(store, 'epoch-read');
      await setDiemDaily(store, a.id, 700, today - DAY_MS);
      await store.run('UPDATE accounts SET diem = 1, diem_epoch = $2 WHERE id = $1', [a.id, diemEpoch(today - DAY_MS)]);
      assert.equal((await getBalances(store, a.id, today)).diem, 700);
      assert.deepEqual([Number((await row(a.id)).diem), (await row(a.id)).diem_epoch], [700, diemEpoch(today)]);
      await store.run('UPDATE accounts SET diem = 5 WHERE id = $1', [a.id]);
      assert.equal((await getBalances(store, a.id, today + 1)).diem, 5);
    });
  });
}
