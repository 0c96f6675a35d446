// The statement's reads on SQLite and PostgreSQL: pages (offset) and the export's keyset batches give the same
// entries in the same order, ties in time included, with every kind mixed in; filters; the count; another account's
// rows never appear.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { BACKENDS, freshStore } from '../../e2e/support/stores.ts';
import { createAccount } from '../accounts/accounts.ts';
import type { Store } from '../db/store.ts';
import { ensureWallet } from '../wallet/wallets.ts';
import { accountStatement, countStatement, type StatementEntry, statementBatches, statementCsv } from './statement.ts';

const T = 1_767_000_000_000;

async function usage(store: Store, accountId: string, id: string, at: number, over: { model?: string; endpoint?: string; key?: string } = {}) {
  await store.run(
    `INSERT INTO usage (request_id, account_id, key_id, model_id, endpoint, prompt_tokens, completion_tokens, cached_tokens, usd, diem, created_at, unit, quantity)
     VALUES ($1, $2, $3, $4, $5, 10, 5, 0, 100, 0, $6, 'token', 15)`,
    [id, accountId, over.key ?? null, over.model ?? 'm-a', over.endpoint ?? '/chat/completions', at],
  );
}

for (const backend of BACKENDS)
  describe(`statement (${backend})`, () => {
    let store: Store;
    let dispose: () => Promise<void>;
    let wallet: Awaited<ReturnType<typeof ensureWallet>>;
    let other: string;

    before(async () => {
      ({ store, dispose } = await freshStore(backend));
      wallet = await ensureWallet(store, 'eip155', `0x${'12'.repeat(20)}`);
      other = (await createAccount(store, 'other')).id;
      // Seven charges, three of them in the same millisecond; a search; two grants (one tied with a charge); a top-up.
      for (let i = 0; i < 7; i++) await usage(store, wallet.accountId, `req-${i}`, i < 3 ? T : T + i * 1000, { model: i % 2 ? 'm-b' : 'm-a', key: 'k1' });
      await usage(store, wallet.accountId, 'req-search', T + 500, { endpoint: '/augment/search', model: 'search' });
      await store.run(
        `INSERT INTO credit_grants (id, account_id, usd, note, created_at) VALUES ('g-1', $1, 5000000, 'hello', $2), ('g-2', $1, 1000000, '', $3)`,
        [wallet.accountId, T, T + 9000],
      );
      await store.run(
        `INSERT INTO x402_topups (id, payment_key, network, asset, payer, amount, status, claim_id, wallet_id, tx_hash, created_at, updated_at)
         VALUES ('t-1', 'pk', 'eip155:8453', 'usdc', $1, 10000000, 'settled', 'c', $2, '0xabc', $3, $3),
                ('t-2', 'pk2', 'eip155:8453', 'usdc', $1, 10000000, 'failed', 'c2', $2, NULL, $3, $3)`,
        [wallet.address, wallet.id, T + 2500],
      );
      await usage(store, other, 'other-1', T + 100);
    });
    after(async () => dispose?.());

    const all = async (f = {}) => (await accountStatement(store, wallet.accountId, { ...f, page: 1, limit: 100 })).entries;
    const ids = (es: StatementEntry[]) => es.map((e) => `${e.kind}:${e.id}`);

    test('every entry, newest first, ties broken by id; failed top-ups and other accounts left out', async () => {
      const entries = await all();
      assert.equal(entries.length, 11);
      assert.equal(await countStatement(store, wallet.accountId, {}), 11);
      for (let i = 1; i < entries.length; i++) {
        const [a, b] = [entries[i - 1], entries[i]];
        assert.ok(a.at > b.at || (a.at === b.at && a.id > b.id), `${a.id} before ${b.id}`);
      }
      assert.ok(!ids(entries).some((x) => x.includes('other') || x.includes('t-2')));
      const kinds = new Map<string, number>();
      for (const e of entries) kinds.set(e.kind, (kinds.get(e.kind) ?? 0) + 1);
      assert.deepEqual(Object.fromEntries(kinds), { inference: 7, search: 1, grant: 2, topup: 1 });
    });

    test('pages and keyset batches give the same sequence as one read', async () => {
      const whole = ids(await all());
      for (const limit of [1, 2, 3, 4]) {
        const paged: string[] = [];
        for (let page = 1; ; page++) {
          const r = await accountStatement(store, wallet.accountId, { page, limit });
          if (!r.entries.length) break;
          paged.push(...ids(r.entries));
        }
        assert.deepEqual(paged, whole, `pages of ${limit}`);
        const batched: string[] = [];
        for await (const b of statementBatches(store, wallet.accountId, {}, limit)) batched.push(...ids(b));
        assert.deepEqual(batched, whole, `batches of ${limit}`);
      }
    });

    test('filters: kind, model, key, dates; credits drop out of key and model filters', async () => {
      assert.equal((await all({ kind: 'search' })).length, 1);
      assert.equal((await all({ kind: 'grant' })).length, 2);
      assert.deepEqual(ids(await all({ kind: 'topup' })), ['topup:t-1']);
      assert.equal((await all({ modelId: 'm-b' })).length, 3);
      assert.equal((await all({ keyId: 'k1' })).length, 7);
      assert.deepEqual(ids(await all({ from: T + 1, to: T + 3000 })), ['topup:t-1', 'search:req-search'], 'to is exclusive: req-3 at T+3000 is out');
      const batched: string[] = [];
      for await (const b of statementBatches(store, wallet.accountId, { kind: 'inference', from: T }, 2)) batched.push(...ids(b));
      assert.deepEqual(batched, ids(await all({ kind: 'inference', from: T })));
    });

    test('the CSV: one record per entry after the header, credits with their amount', async () => {
      const csv = statementCsv(await all());
      const lines = csv.split('\r\n').filter(Boolean);
      assert.equal(lines.length, 12);
      assert.match(lines.find((l) => l.includes(',topup,'))!, /,topup,t-1,10,eip155:8453,0xabc,0x1212/);
    });
  });
