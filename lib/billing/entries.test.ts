// The append-only ledger on both stores: each movement leaves its entry (grant, DIEM allowance and its daily refill,
// refund, correction, release), the balances reconcile against entries and charges after all of them, a balance
// changed behind the ledger's back is found, and entries cannot be changed or removed.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { BACKENDS, freshStore } from '../../e2e/support/stores.ts';
import { createAccount } from '../accounts/accounts.ts';
import type { Store } from '../db/store.ts';
import { reconcile } from './entries.ts';
import { correctUsd, grantUsd, release, reserve, setDiemDaily, settle } from './ledger.ts';
import { refundIn } from './refund.ts';
import { accountStatement } from './statement.ts';

const DAY_MS = 86_400_000;
const usage = { modelId: 'm', endpoint: '/chat/completions', promptTokens: 10, completionTokens: 5, cachedTokens: 0 };

for (const backend of BACKENDS) {
  describe(`the append-only ledger on ${backend}`, () => {
    let store: Store;
    let dispose: () => Promise<void>;
    before(async () => ({ store, dispose } = await freshStore(backend)));
    after(() => dispose());

    const entries = (accountId: string) =>
      store.all<{ kind: string; usd: number | string; diem: number | string; held_usd: number | string; ref: string | null; note: string | null }>(
        'SELECT kind, usd, diem, held_usd, ref, note FROM ledger_entries WHERE account_id = $1 ORDER BY created_at, kind',
        [accountId],
      );
    const mine = async (accountId: string) => (await reconcile(store)).differences.filter((d) => d.accountId === accountId);

    test('grants, charges, a refund, a correction, DIEM days and a release all reconcile', async () => {
      const day1 = Date.UTC(2026, 10, 24, 12);
      const a = await createAccount(store, 'ledger');
      await grantUsd(store, a.id, 1_000_000, 'welcome');
      await setDiemDaily(store, a.id, 500, day1);
      // A charge in DIEM and USD, then one refunded (its answer never reached the client).
      const one = await reserve(store, { accountId: a.id, keyId: null, estimate: { usd: 900, diem: 900 }, now: day1, requestId: 'r1' });
      await settle(store, one.hold, { usd: 800, diem: 800 }, usage, day1);
      const two = await reserve(store, { accountId: a.id, keyId: null, estimate: { usd: 100, diem: 100 }, now: day1 + 1, requestId: 'r2' });
      await settle(store, two.hold, { usd: 100, diem: 100 }, usage, day1 + 1);
      await store.tx((q) => refundIn(store, q, 'r2', day1 + 2));
      // A request that failed before any output: its hold goes back, and the ledger says so at no amount.
      const three = await reserve(store, { accountId: a.id, keyId: null, estimate: { usd: 50, diem: 0 }, now: day1 + 3, requestId: 'r3' });
      await release(store, three.hold);
      await correctUsd(store, a.id, -200, 'duplicate grant on 24 Nov');
      assert.deepEqual(await mine(a.id), []);
      // The next day the allowance is refilled: what was left expires, the day's allowance arrives.
      const day2 = day1 + DAY_MS;
      const four = await reserve(store, { accountId: a.id, keyId: null, estimate: { usd: 10, diem: 10 }, now: day2, requestId: 'r4' });
      await settle(store, four.hold, { usd: 10, diem: 10 }, usage, day2);
      assert.deepEqual(await mine(a.id), []);

      const kinds = (await entries(a.id)).map((e) => [e.kind, Number(e.usd), Number(e.diem), e.ref ?? e.note]);
      // (Entries carry the test's clock where the ledger takes one, the real clock elsewhere: compare them as a set.)
      assert.deepEqual(kinds.map((k) => k[0]).sort(), ['allowance', 'allowance', 'correction', 'grant', 'refund', 'release']);
      const refund = (await entries(a.id)).find((e) => e.kind === 'refund')!;
      assert.deepEqual([Number(refund.usd), Number(refund.diem), refund.ref], [100, 0, 'r2'], 'day 1 DIEM was spent by r1: r2 was USD');
      const correction = (await entries(a.id)).find((e) => e.kind === 'correction')!;
      assert.deepEqual([Number(correction.usd), correction.note], [-200, 'duplicate grant on 24 Nov']);
      const release3 = (await entries(a.id)).find((e) => e.kind === 'release')!;
      assert.deepEqual([Number(release3.held_usd), release3.ref], [50, 'r3']);
      // r1 spent day 1's DIEM; the refill brings the allowance back to 500, and r4 spent 10 of it.
      const refill = (await entries(a.id)).filter((e) => e.kind === 'allowance')[1];
      const row = await store.get<{ diem: number | string }>('SELECT diem FROM accounts WHERE id = $1', [a.id]);
      assert.equal(Number(row?.diem), 490);
      assert.ok(Number(refill.diem) > 0);

      // The statement shows them: the charge and its refund, the released hold, the correction with its reason.
      const { entries: lines } = await accountStatement(store, a.id, { page: 1, limit: 50 });
      const line = (kind: string) => lines.find((l) => l.kind === kind);
      assert.deepEqual(line('refund')?.credit && [line('refund')!.credit!.usd, line('refund')!.credit!.requestId], [0.0001, 'r2']);
      assert.ok(
        lines.some((l) => l.kind === 'inference' && l.id === 'r2'),
        'the refunded charge is still a line',
      );
      assert.deepEqual(line('release')?.credit && [line('release')!.credit!.heldUsd, line('release')!.credit!.usd], [0.00005, 0]);
      assert.deepEqual(line('correction')?.credit && [line('correction')!.credit!.usd, line('correction')!.credit!.note], [
        -0.0002,
        'duplicate grant on 24 Nov',
      ]);
      const onlyRefunds = await accountStatement(store, a.id, { page: 1, limit: 50, kind: 'refund' });
      assert.deepEqual(
        onlyRefunds.entries.map((l) => l.kind),
        ['refund'],
      );
    });

    test('a correction never takes a balance below zero and needs its reason', async () => {
      const a = await createAccount(store, 'small');
      await grantUsd(store, a.id, 100);
      await assert.rejects(correctUsd(store, a.id, -101, 'too much'), /below zero/);
      await assert.rejects(correctUsd(store, a.id, -1, '  '), /reason/);
      assert.deepEqual(await mine(a.id), []);
    });

    test('a balance changed behind the ledger is found; entries cannot be changed or removed', async () => {
      const a = await createAccount(store, 'tampered');
      await grantUsd(store, a.id, 5_000);
      await store.run('UPDATE accounts SET usd = usd + 1 WHERE id = $1', [a.id]);
      assert.deepEqual(await mine(a.id), [{ accountId: a.id, currency: 'usd', balance: 5_001, expected: 5_000 }]);
      await assert.rejects(store.run('UPDATE ledger_entries SET usd = usd + 1 WHERE account_id = $1', [a.id]), /append-only/);
      await assert.rejects(store.run('DELETE FROM ledger_entries WHERE account_id = $1', [a.id]), /append-only/);
    });
  });
}
