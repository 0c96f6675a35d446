// Idempotency keys on both stores: one claim per (account, key), replays of the stored answer, another body refused,
// a duplicate that waits for the running owner, a failed owner giving its claim up, and an abandoned claim taken over.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { freshStore } from '../../e2e/support/stores.ts';
import { createAccount } from '../accounts/accounts.ts';
import type { Store } from '../db/store.ts';
import { IdempotencyStore } from './idempotency.ts';

for (const backend of ['sqlite', 'postgres'] as const) {
  describe(`idempotency keys on ${backend}`, () => {
    let store: Store;
    let dispose: () => Promise<void>;
    let account: string;
    before(async () => {
      ({ store, dispose } = await freshStore(backend));
      account = (await createAccount(store, 'idempotency')).id;
    });
    after(() => dispose?.());

    test('the first request owns the key; the same body replays its answer; another request is a 422', async () => {
      const keys = new IdempotencyStore(store, { staleMs: 60_000 });
      const first = await keys.claim(account, 'k1', 'hash-a', 'req-1');
      assert.equal(first.kind, 'owner');
      if (first.kind !== 'owner') return;
      await first.complete('{"status":200,"body":"0xabc"}');
      const again = await keys.claim(account, 'k1', 'hash-a', 'req-2');
      assert.deepEqual(again, { kind: 'replay', answer: '{"status":200,"body":"0xabc"}', owner: 'req-1' });
      await assert.rejects(keys.claim(account, 'k1', 'hash-b', 'req-3'), (e: any) => e.status === 422 && e.code === 'IDEMPOTENCY_KEY_REUSED');
      // Keys are per account.
      const other = (await createAccount(store, 'other')).id;
      assert.equal((await keys.claim(other, 'k1', 'hash-b', 'req-4')).kind, 'owner');
    });

    test('a duplicate waits for the running owner and replays; a failed owner hands the key to the next request', async () => {
      const keys = new IdempotencyStore(store, { staleMs: 60_000 });
      const elsewhere = new IdempotencyStore(store, { staleMs: 60_000 }); // another instance: polls the row
      const owner = await keys.claim(account, 'k2', 'h', 'req-1');
      assert.equal(owner.kind, 'owner');
      const local = keys.claim(account, 'k2', 'h', 'req-2');
      const remote = elsewhere.claim(account, 'k2', 'h', 'req-3');
      if (owner.kind === 'owner') await owner.complete('"done"');
      assert.deepEqual(await local, { kind: 'replay', answer: '"done"', owner: 'req-1' });
      assert.deepEqual(await remote, { kind: 'replay', answer: '"done"', owner: 'req-1' });

      const failing = await keys.claim(account, 'k3', 'h', 'req-4');
      const waiting = elsewhere.claim(account, 'k3', 'h', 'req-5');
      if (failing.kind === 'owner') await failing.abandon();
      const next = await waiting;
      assert.equal(next.kind, 'owner', 'the retry forwards afresh');
    });

    test('a claim silent for longer than any attempt can run is taken over; a live one makes a duplicate wait, then 409', async () => {
      const keys = new IdempotencyStore(store, { staleMs: 200 });
      const stuck = await keys.claim(account, 'k4', 'h', 'req-dead');
      assert.equal(stuck.kind, 'owner');
      await store.run('UPDATE idempotency_keys SET updated_at = updated_at - 10000 WHERE idem_key = $1', ['k4']);
      const taken = await keys.claim(account, 'k4', 'h', 'req-new');
      assert.equal(taken.kind, 'owner');
      // The dead owner can no longer complete what the new owner claimed.
      if (stuck.kind === 'owner') await stuck.complete('"stale"');
      if (taken.kind === 'owner') await taken.complete('"fresh"');
      assert.deepEqual(await keys.claim(account, 'k4', 'h', 'req-x'), { kind: 'replay', answer: '"fresh"', owner: 'req-new' });

      const live = new IdempotencyStore(store, { staleMs: 60_000 });
      const busy = await live.claim(account, 'k5', 'h', 'req-busy');
      const impatient = new IdempotencyStore(store, { staleMs: 1000 });
      // Its owner keeps the row fresh (as a live one would) while the duplicate waits past its patience.
      const keepFresh = setInterval(() => void store.run('UPDATE idempotency_keys SET updated_at = $1 WHERE idem_key = $2', [Date.now(), 'k5']), 20);
      try {
        await assert.rejects(impatient.claim(account, 'k5', 'h', 'req-dup'), (e: any) => e.status === 409 && e.code === 'IDEMPOTENCY_KEY_IN_PROGRESS');
      } finally {
        clearInterval(keepFresh);
        if (busy.kind === 'owner') await busy.abandon();
      }
    });

    test('an expired key (older than 24 h) is claimed afresh', async () => {
      const keys = new IdempotencyStore(store, { staleMs: 60_000 });
      const old = await keys.claim(account, 'k6', 'h', 'req-1');
      if (old.kind === 'owner') await old.complete('"old"');
      await store.run('UPDATE idempotency_keys SET created_at = created_at - $1 WHERE idem_key = $2', [25 * 3600_000, 'k6']);
      assert.equal((await keys.claim(account, 'k6', 'other-body', 'req-2')).kind, 'owner');
    });
  });
}
