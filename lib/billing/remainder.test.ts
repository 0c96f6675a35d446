// Work cheaper than a micro-unit is billed after all: the fraction a settlement does not charge is carried on the
// account into the next one, on both stores. Sixteen requests of 0.32 µ$ charge 5 µ$ in all (0.12 µ$ carried), where
// each used to be billed 0; a settlement in whole micro-units leaves the carried fraction alone; a second settlement
// of the same request moves neither money nor the fraction.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { BACKENDS, freshStore } from '../../e2e/support/stores.ts';
import { createAccount } from '../accounts/accounts.ts';
import { getBalances, grantUsd, reserve, settle } from './ledger.ts';

const usage = { modelId: 'embed', endpoint: '/embeddings', promptTokens: 16, completionTokens: 0, cachedTokens: 0 };

for (const backend of BACKENDS)
  describe(`sub-micro-unit remainders (${backend})`, () => {
    test('16 requests of 0.32 µ$ are billed 5 µ$ in all, the rest carried; whole amounts leave it alone', async () => {
      const { store, dispose } = await freshStore(backend);
      try {
        const a = await createAccount(store, 'tiny');
        await grantUsd(store, a.id, 1_000_000);
        const charged: number[] = [];
        for (let i = 0; i < 16; i++) {
          const { hold } = await reserve(store, { accountId: a.id, keyId: null, estimate: { usd: 1, diem: 0 } });
          charged.push((await settle(store, hold, { usd: 0.32, diem: 0 }, usage)).usd);
        }
        assert.equal(
          charged.reduce((n, c) => n + c, 0),
          5,
        );
        assert.deepEqual(charged.slice(0, 4), [0, 0, 0, 1], 'the fourth request crosses a whole micro-unit');
        assert.equal((await getBalances(store, a.id)).usd, 1_000_000 - 5);
        const frac = async () => Number((await store.get<{ f: number }>('SELECT usd_frac AS f FROM accounts WHERE id = $1', [a.id]))!.f);
        assert.equal(await frac(), 120_000);
        const rows = await store.all<{ usd: number | string }>('SELECT usd FROM usage WHERE account_id = $1', [a.id]);
        assert.equal(
          rows.reduce((n, r) => n + Number(r.usd), 0),
          5,
        );

        // A whole cost: charged as it is, the carried fraction untouched.
        const { hold } = await reserve(store, { accountId: a.id, keyId: null, estimate: { usd: 10, diem: 0 } });
        assert.equal((await settle(store, hold, { usd: 7, diem: 0 }, usage)).usd, 7);
        assert.equal(await frac(), 120_000);
        // The same request settled again: nothing moves, the fraction included.
        const again = await reserve(store, { accountId: a.id, keyId: null, estimate: { usd: 1, diem: 0 } });
        await settle(store, again.hold, { usd: 0.9, diem: 0 }, usage);
        assert.equal(await frac(), 20_000);
        assert.deepEqual(await settle(store, again.hold, { usd: 0.9, diem: 0 }, usage), { usd: 0, diem: 0 });
        assert.equal(await frac(), 20_000);
        assert.equal((await getBalances(store, a.id)).usd, 1_000_000 - 5 - 7 - 1);
      } finally {
        await dispose();
      }
    });
  });
