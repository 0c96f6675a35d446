// The public cursor form of the usage history on both backends: entries per currency, keyset pages that neither
// skip nor repeat an entry (rows of the same millisecond, a row split across two pages, ids whose bytewise and
// locale orders differ), filters, and the signed cursor (tampering, another account, expiry).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { freshStore } from '../../e2e/support/stores.ts';
import { createAccount } from '../accounts/accounts.ts';
import { isApiError } from '../api/errors.ts';
import type { Store } from '../db/store.ts';
import { CURSOR_TTL_MS, decodeCursor, encodeCursor } from './usage-cursor.ts';
import { entriesOf, type UsageEntry, usageEntries } from './usage-entries.ts';

const T0 = Date.UTC(2026, 2, 10);

interface Seed {
  id: string;
  at: number;
  usd: number; // micro-units
  diem: number;
  unit?: string;
  quantity?: number;
}

// Same-millisecond rows whose ids sort differently bytewise ('B' < 'a') and in a typical locale ('a' < 'B').
const SEEDS: Seed[] = [
  { id: 'r-a', at: T0, usd: 100, diem: 0 },
  { id: 'r-B', at: T0, usd: 30, diem: 70 },
  { id: 'r-c', at: T0 + 1, usd: 0, diem: 40 },
  { id: 'r-d', at: T0 + 2, usd: 0, diem: 0 },
  { id: 'r-e', at: T0 + 5, usd: 2_000_000, diem: 0, unit: 'image', quantity: 4 },
  { id: 'r-f', at: T0 + 5, usd: 10, diem: 10 },
  { id: 'r-g', at: T0 + 9, usd: 5, diem: 0 },
];

async function insert(store: Store, account: string, s: Seed) {
  await store.run(
    `INSERT INTO usage (request_id, account_id, key_id, model_id, endpoint, prompt_tokens, completion_tokens, cached_tokens, usd, diem, created_at, unit, quantity)
     VALUES ($1, $2, NULL, 'm1', '/chat/completions', 600000, 400000, 0, $3, $4, $5, $6, $7)`,
    [s.id, account, s.usd, s.diem, s.at, s.unit ?? 'token', s.quantity ?? 1_000_000],
  );
}

const key = (e: UsageEntry) => `${e.inferenceDetails.requestId}/${e.currency}`;

for (const backend of ['sqlite', 'postgres'] as const) {
  describe(`usage entries on ${backend}`, () => {
    let store: Store;
    let cleanup: () => Promise<void>;
    let a: string;
    let b: string;

    before(async () => {
      ({ store, dispose: cleanup } = await freshStore(backend));
      a = (await createAccount(store, 'entries-a')).id;
      b = (await createAccount(store, 'entries-b')).id;
      for (const s of SEEDS) await insert(store, a, s);
      await insert(store, b, { id: 'r-b1', at: T0, usd: 1, diem: 0 });
    });
    after(() => cleanup());

    // Bytewise: r-B < r-a at T0; one entry per currency paid (USD first); the free request as one USD entry of 0.
    const ALL = ['r-B/USD', 'r-B/DIEM', 'r-a/USD', 'r-c/DIEM', 'r-d/USD', 'r-e/USD', 'r-f/USD', 'r-f/DIEM', 'r-g/USD'];

    test('one page: every entry of the account, oldest first, in bytewise id order within a millisecond', async () => {
      const page = await usageEntries(store, a, { pageSize: 100 });
      assert.deepEqual(page.data.map(key), ALL);
      assert.equal(page.next, undefined);
    });

    test('every page size walks the same entries exactly once, through encoded cursors', async () => {
      for (let size = 1; size <= ALL.length + 1; size++) {
        const seen: string[] = [];
        let page = await usageEntries(store, a, { pageSize: size });
        for (;;) {
          assert.ok(page.data.length <= size);
          seen.push(...page.data.map(key));
          if (!page.next) break;
          const state = await decodeCursor(store, a, await encodeCursor(store, a, { pageSize: size, after: page.next }));
          page = await usageEntries(store, a, state);
        }
        assert.deepEqual(seen, ALL, `pageSize ${size}`);
      }
    });

    test('filters: time range (end exclusive) and currency; the credit currencies have no entries', async () => {
      const ranged = await usageEntries(store, a, { pageSize: 100, from: T0 + 1, to: T0 + 5 });
      assert.deepEqual(ranged.data.map(key), ['r-c/DIEM', 'r-d/USD']);
      const usd = await usageEntries(store, a, { pageSize: 100, currency: 'USD' });
      assert.deepEqual(usd.data.map(key), ['r-B/USD', 'r-a/USD', 'r-e/USD', 'r-f/USD', 'r-g/USD']);
      const diem = await usageEntries(store, a, { pageSize: 2, currency: 'DIEM' });
      assert.deepEqual(diem.data.map(key), ['r-B/DIEM', 'r-c/DIEM']);
      const rest = await usageEntries(store, a, { pageSize: 2, currency: 'DIEM', after: diem.next });
      assert.deepEqual(rest.data.map(key), ['r-f/DIEM']);
      assert.deepEqual((await usageEntries(store, a, { pageSize: 10, currency: 'BUNDLED_CREDITS' })).data, []);
      assert.deepEqual((await usageEntries(store, b, { pageSize: 10 })).data.map(key), ['r-b1/USD'], 'another account sees only its own');
    });

    test('the cursor is refused when altered, from another account, or expired', async () => {
      const state = { pageSize: 10, currency: 'USD' as const, from: T0, after: { createdAt: T0, requestId: 'r-a', currency: 'USD' as const } };
      const cursor = await encodeCursor(store, a, state);
      assert.match(cursor, /^[A-Za-z0-9_-]{1,512}$/);
      assert.deepEqual(await decodeCursor(store, a, cursor), { ...state, to: undefined });
      const refused = async (c: string, account = a, now = Date.now()) =>
        assert.rejects(decodeCursor(store, account, c, now), (e) => isApiError(e) && e.status === 400 && /restart from the first page/.test(e.message));
      const body = JSON.parse(Buffer.from(cursor.slice(0, -43), 'base64url').toString());
      const altered = Buffer.from(JSON.stringify({ ...body, c: 'DIEM' })).toString('base64url') + cursor.slice(-43);
      await refused(altered);
      await refused(cursor.slice(0, -1) + (cursor.endsWith('A') ? 'B' : 'A'));
      await refused('short');
      await refused(cursor, b);
      await refused(cursor, a, Date.now() + CURSOR_TTL_MS + 1);
    });
  });
}

test('an entry splits its units by the share each currency paid, so units x price = amount', () => {
  const row = {
    request_id: 'x',
    model_id: 'llama',
    prompt_tokens: 1_500_000,
    completion_tokens: 500_000,
    unit: 'token' as const,
    quantity: 2_000_000,
    usd: 3_000_000,
    diem: 1_000_000,
    created_at: T0,
  };
  const [usd, diem] = entriesOf(row).map((e) => e.entry);
  assert.deepEqual([usd.sku, usd.units, usd.pricePerUnitUsd, usd.amount, usd.currency, usd.notes], ['llama-llm-mtoken', 1.5, 2, -3, 'USD', 'API Inference']);
  assert.deepEqual([diem.units, diem.amount, diem.currency], [0.5, -1, 'DIEM']);
  assert.deepEqual(usd.inferenceDetails, { requestId: 'x', promptTokens: 1_500_000, completionTokens: 500_000, inferenceExecutionTime: null });
  const image = entriesOf({ ...row, unit: 'image', quantity: 2, usd: 80_000, diem: 0 })[0].entry;
  assert.deepEqual([image.sku, image.units, image.pricePerUnitUsd, image.inferenceDetails.promptTokens], ['llama-image', 2, 0.04, null]);
});
