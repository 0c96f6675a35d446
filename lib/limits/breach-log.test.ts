// The breach log on both stores: newest first, the reference's item shape, the page limit, and the per-account
// bound.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { freshStore } from '../../e2e/support/stores.ts';
import type { Store } from '../db/store.ts';
import { BREACHES_KEPT, listBreaches, recordBreach, TRIM_EVERY } from './breach-log.ts';

const T0 = Date.UTC(2025, 0, 2, 3, 4, 5);

for (const backend of ['sqlite', 'postgres'] as const) {
  describe(`breach log on ${backend}`, () => {
    let store: Store;
    let cleanup: () => Promise<void>;

    before(async () => {
      ({ store, dispose: cleanup } = await freshStore(backend));
    });
    after(() => cleanup());

    test('lists an account’s breaches newest first in the reference shape', async () => {
      await recordBreach(store, { accountId: 'acc-1', keyId: 'key-1', modelId: 'm-old', type: 'RPM', tier: 'paid', at: T0 });
      await recordBreach(store, { accountId: 'acc-1', keyId: null, modelId: 'm-new', type: 'FAILED_REQUESTS', tier: 'paid', at: T0 + 2000 });
      await recordBreach(store, { accountId: 'acc-1', keyId: 'key-2', modelId: 'm-mid', type: 'TPM', tier: 'partner', at: T0 + 1000 });
      await recordBreach(store, { accountId: 'acc-other', keyId: 'key-9', modelId: 'x', type: 'RPD', tier: 'paid', at: T0 + 5000 });

      assert.deepEqual(await listBreaches(store, 'acc-1'), [
        { apiKeyId: null, modelId: 'm-new', rateLimitTier: 'paid', rateLimitType: 'FAILED_REQUESTS', timestamp: '2025-01-02T03:04:07.000Z' },
        { apiKeyId: 'key-2', modelId: 'm-mid', rateLimitTier: 'partner', rateLimitType: 'TPM', timestamp: '2025-01-02T03:04:06.000Z' },
        { apiKeyId: 'key-1', modelId: 'm-old', rateLimitTier: 'paid', rateLimitType: 'RPM', timestamp: '2025-01-02T03:04:05.000Z' },
      ]);
      assert.deepEqual(await listBreaches(store, 'nobody'), []);
    });

    test('at most 50 by default, or the limit asked for; the time defaults to now', async () => {
      for (let i = 0; i < 60; i++) {
        await recordBreach(store, { accountId: 'acc-page', keyId: 'k', modelId: `m-${i}`, type: 'RPM', tier: 'paid', at: T0 + i * 1000 });
      }
      const page = await listBreaches(store, 'acc-page');
      assert.equal(page.length, 50);
      assert.equal(page[0].modelId, 'm-59');
      assert.equal(page[49].modelId, 'm-10');
      assert.deepEqual(
        (await listBreaches(store, 'acc-page', 2)).map((b) => b.modelId),
        ['m-59', 'm-58'],
      );

      const before = Date.now();
      await recordBreach(store, { accountId: 'acc-now', keyId: 'k', modelId: 'm', type: 'RPD', tier: 'paid' });
      const [now] = await listBreaches(store, 'acc-now');
      const t = Date.parse(now.timestamp);
      assert.ok(t >= before && t <= Date.now(), now.timestamp);
    });

    test(`an account keeps its newest ${BREACHES_KEPT} rows; other accounts are untouched`, async () => {
      const extra = 2 * TRIM_EVERY;
      const total = BREACHES_KEPT + extra;
      for (let i = 0; i < total; i++) {
        await recordBreach(store, { accountId: 'acc-busy', keyId: 'k', modelId: `m-${i}`, type: 'RPM', tier: 'paid', at: T0 + i });
      }
      const rows = await store.all<{ model_id: string }>('SELECT model_id FROM rate_limit_breaches WHERE account_id = $1', ['acc-busy']);
      assert.equal(rows.length, BREACHES_KEPT);
      assert.ok(!rows.some((r) => r.model_id === `m-${extra - 1}`), 'the oldest rows went');
      assert.ok(rows.some((r) => r.model_id === `m-${extra}`));
      assert.equal((await listBreaches(store, 'acc-1')).length, 3);
    });
  });
}
