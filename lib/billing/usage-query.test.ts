// Usage history and analytics on both backends (the embedded SQLite file and a real PostgreSQL database), and the
// CSV writer the history export uses.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { freshStore } from '../../e2e/support/stores.ts';
import { createAccount } from '../accounts/accounts.ts';
import { accountKeys } from '../auth/keys.ts';
import { MIGRATIONS } from '../db/migrations.ts';
import type { Store } from '../db/store.ts';
import { csvField, toCsv } from './csv.ts';
import { usageAnalytics, usageHistory } from './usage-query.ts';

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 2, 10); // 2026-03-10T00:00:00Z

interface Seed {
  id: string;
  account: string;
  key: string | null;
  model: string;
  at: number;
  usd: number; // micro-units
  diem: number;
  prompt: number;
  completion: number;
}

async function insert(store: Store, s: Seed) {
  await store.run(
    `INSERT INTO usage (request_id, account_id, key_id, model_id, endpoint, prompt_tokens, completion_tokens, cached_tokens, usd, diem, created_at)
     VALUES ($1, $2, $3, $4, '/chat/completions', $5, $6, 1, $7, $8, $9)`,
    [s.id, s.account, s.key, s.model, s.prompt, s.completion, s.usd, s.diem, s.at],
  );
}

for (const backend of ['sqlite', 'postgres'] as const) {
  describe(`usage queries on ${backend}`, () => {
    let store: Store;
    let cleanup: () => Promise<void>;
    let a: string;
    let b: string;
    let keyA1: string;
    let keyA2: string;
    let keyB: string;
    const seeds: Seed[] = [];

    before(async () => {
      ({ store, dispose: cleanup } = await freshStore(backend));
      a = (await createAccount(store, 'usage-a')).id;
      b = (await createAccount(store, 'usage-b')).id;
      keyA1 = (await accountKeys(store, a).create({ type: 'INFERENCE', description: 'primary' })).key.id;
      keyA2 = (await accountKeys(store, a).create({ type: 'INFERENCE', description: 'batch, "nightly"' })).key.id;
      keyB = (await accountKeys(store, b).create({ type: 'INFERENCE', description: 'other account' })).key.id;
      // Account A: day 0 (3 rows), nothing on day 1, day 2 (2 rows, one at the same ms as another), day 3 (1 row
      // without a key). Account B: rows on the same days that must never show up for A.
      seeds.push(
        { id: 'a-01', account: a, key: keyA1, model: 'alpha', at: T0, usd: 100, diem: 0, prompt: 10, completion: 5 },
        { id: 'a-02', account: a, key: keyA2, model: 'beta', at: T0 + 1_000, usd: 50, diem: 25, prompt: 20, completion: 7 },
        { id: 'a-03', account: a, key: keyA1, model: 'alpha', at: T0 + DAY - 1, usd: 1, diem: 2, prompt: 3, completion: 4 },
        { id: 'a-04', account: a, key: keyA2, model: 'beta', at: T0 + 2 * DAY + 500, usd: 0, diem: 700, prompt: 30, completion: 9 },
        { id: 'a-05', account: a, key: keyA1, model: 'gamma', at: T0 + 2 * DAY + 500, usd: 1_234_567, diem: 0, prompt: 40, completion: 11 },
        { id: 'a-06', account: a, key: null, model: 'alpha', at: T0 + 3 * DAY, usd: 9, diem: 0, prompt: 1, completion: 1 },
        { id: 'b-01', account: b, key: keyB, model: 'alpha', at: T0 + 10, usd: 5_000, diem: 0, prompt: 99, completion: 99 },
        { id: 'b-02', account: b, key: keyB, model: 'delta', at: T0 + 2 * DAY, usd: 7_000, diem: 3, prompt: 99, completion: 99 },
      );
      // A row of account A naming B's key (a key id is only ever joined within its own account).
      seeds.push({ id: 'a-07', account: a, key: keyB, model: 'alpha', at: T0 + 3 * DAY + 1, usd: 3, diem: 0, prompt: 2, completion: 2 });
      for (const s of seeds) await insert(store, s);
    });
    after(() => cleanup());

    const ofA = () => seeds.filter((s) => s.account === a).sort((x, y) => y.at - x.at || (y.id < x.id ? -1 : 1));
    const ids = (rows: { requestId: string }[]) => rows.map((r) => r.requestId);

    test('history: newest first, every field mapped, amounts in USD/DIEM, only the account’s rows', async () => {
      const { rows, total } = await usageHistory(store, a, { page: 1, limit: 100 });
      assert.equal(total, 7);
      assert.deepEqual(ids(rows), ids(ofA().map((s) => ({ requestId: s.id }))));
      assert.deepEqual(ids(rows), ['a-07', 'a-06', 'a-05', 'a-04', 'a-03', 'a-02', 'a-01']);
      assert.deepEqual(
        rows.find((r) => r.requestId === 'a-05'),
        {
          timestamp: '2026-03-12T00:00:00.500Z',
          requestId: 'a-05',
          apiKeyId: keyA1,
          modelId: 'gamma',
          endpoint: '/chat/completions',
          promptTokens: 40,
          completionTokens: 11,
          cachedTokens: 1,
          searches: 0,
          scrapedUrls: 0,
          usd: 1.234567,
          diem: 0,
          unit: 'token',
          quantity: 0,
        },
      );
      assert.equal(rows.find((r) => r.requestId === 'a-06')!.apiKeyId, null);
      assert.equal(rows.find((r) => r.requestId === 'a-02')!.diem, 0.000025);
      const other = await usageHistory(store, b, { page: 1, limit: 100 });
      assert.deepEqual(ids(other.rows), ['b-02', 'b-01']);
      assert.equal((await usageHistory(store, 'no-such-account', { page: 1, limit: 10 })).total, 0);
    });

    test('history: pages partition the rows in order (ties broken by request id), past the end is empty', async () => {
      const all = ids((await usageHistory(store, a, { page: 1, limit: 100 })).rows);
      const pages: string[][] = [];
      for (let page = 1; page <= 4; page++) {
        const r = await usageHistory(store, a, { page, limit: 2 });
        assert.equal(r.total, 7);
        pages.push(ids(r.rows));
      }
      assert.deepEqual(
        pages.map((p) => p.length),
        [2, 2, 2, 1],
      );
      assert.deepEqual(pages.flat(), all);
      // a-05 and a-04 share a millisecond and sit on one page boundary's side deterministically.
      assert.deepEqual(pages[1], ['a-05', 'a-04']);
      assert.deepEqual(await usageHistory(store, a, { page: 5, limit: 2 }), { rows: [], total: 7 });
    });

    test('history filters: from inclusive, to exclusive, key, model, combined; another account’s key finds nothing of it', async () => {
      const f = (q: Parameters<typeof usageHistory>[2]) => usageHistory(store, a, q).then((r) => ({ ids: ids(r.rows), total: r.total }));
      assert.deepEqual(await f({ from: T0 + DAY - 1, to: T0 + 3 * DAY, page: 1, limit: 50 }), { ids: ['a-05', 'a-04', 'a-03'], total: 3 });
      assert.deepEqual(await f({ to: T0 + 1_000, page: 1, limit: 50 }), { ids: ['a-01'], total: 1 });
      assert.deepEqual(await f({ from: T0 + 3 * DAY, page: 1, limit: 50 }), { ids: ['a-07', 'a-06'], total: 2 });
      assert.deepEqual(await f({ keyId: keyA2, page: 1, limit: 50 }), { ids: ['a-04', 'a-02'], total: 2 });
      assert.deepEqual(await f({ modelId: 'alpha', page: 1, limit: 50 }), { ids: ['a-07', 'a-06', 'a-03', 'a-01'], total: 4 });
      assert.deepEqual(await f({ modelId: 'alpha', keyId: keyA1, from: T0 + 1, page: 1, limit: 50 }), { ids: ['a-03'], total: 1 });
      assert.deepEqual(await f({ modelId: 'delta', page: 1, limit: 50 }), { ids: [], total: 0 });
      // B's key on A's account: only the row A itself recorded with it, never B's rows.
      assert.deepEqual(await f({ keyId: keyB, page: 1, limit: 50 }), { ids: ['a-07'], total: 1 });
      assert.deepEqual(ids((await usageHistory(store, b, { keyId: keyA1, page: 1, limit: 50 })).rows), []);
    });

    test('analytics: every day of the range ascending (zeros included), sums per day, model and key, sorted by spend', async () => {
      const r = await usageAnalytics(store, a, { from: T0 - DAY, to: T0 + 4 * DAY });
      assert.deepEqual(r.byDay, [
        { date: '2026-03-09', usd: 0, diem: 0, requests: 0, promptTokens: 0, completionTokens: 0 },
        { date: '2026-03-10', usd: 0.000151, diem: 0.000027, requests: 3, promptTokens: 33, completionTokens: 16 },
        { date: '2026-03-11', usd: 0, diem: 0, requests: 0, promptTokens: 0, completionTokens: 0 },
        { date: '2026-03-12', usd: 1.234567, diem: 0.0007, requests: 2, promptTokens: 70, completionTokens: 20 },
        { date: '2026-03-13', usd: 0.000012, diem: 0, requests: 2, promptTokens: 3, completionTokens: 3 },
      ]);
      assert.deepEqual(r.byModel, [
        { modelId: 'gamma', usd: 1.234567, diem: 0, requests: 1, promptTokens: 40, completionTokens: 11, unit: 'token', quantity: 0 },
        { modelId: 'beta', usd: 0.00005, diem: 0.000725, requests: 2, promptTokens: 50, completionTokens: 16, unit: 'token', quantity: 0 },
        { modelId: 'alpha', usd: 0.000113, diem: 0.000002, requests: 4, promptTokens: 16, completionTokens: 12, unit: 'token', quantity: 0 },
      ]);
      assert.deepEqual(r.byKey, [
        { apiKeyId: keyA1, description: 'primary', usd: 1.234668, diem: 0.000002, requests: 3 },
        { apiKeyId: keyA2, description: 'batch, "nightly"', usd: 0.00005, diem: 0.000725, requests: 2 },
        { apiKeyId: null, description: null, usd: 0.000009, diem: 0, requests: 1 },
        // B's key id recorded on A's row: counted for A, but B's description is not revealed.
        { apiKeyId: keyB, description: null, usd: 0.000003, diem: 0, requests: 1 },
      ]);
    });

    test('analytics: the range bounds the rows (to exclusive) and totals match the history of the same range', async () => {
      const from = T0 + 1_000;
      const to = T0 + 2 * DAY + 500;
      const r = await usageAnalytics(store, a, { from, to });
      assert.deepEqual(
        r.byDay.map((d) => [d.date, d.requests]),
        [
          ['2026-03-10', 2],
          ['2026-03-11', 0],
          ['2026-03-12', 0],
        ],
      );
      const hist = (await usageHistory(store, a, { from, to, page: 1, limit: 100 })).rows;
      const micros = (n: number) => Math.round(n * 1e6);
      const sum = (xs: number[]) => xs.reduce((s, x) => s + x, 0);
      for (const field of ['usd', 'diem'] as const) {
        assert.equal(sum(r.byDay.map((d) => micros(d[field]))), sum(hist.map((h) => micros(h[field]))));
        assert.equal(sum(r.byModel.map((d) => micros(d[field]))), sum(hist.map((h) => micros(h[field]))));
        assert.equal(sum(r.byKey.map((d) => micros(d[field]))), sum(hist.map((h) => micros(h[field]))));
      }
      const other = await usageAnalytics(store, b, { from: T0, to: T0 + 3 * DAY });
      assert.deepEqual(
        other.byModel.map((m) => m.modelId),
        ['delta', 'alpha'],
      );
      assert.deepEqual(other.byKey, [{ apiKeyId: keyB, description: 'other account', usd: 0.012, diem: 0.000003, requests: 2 }]);
      const empty = await usageAnalytics(store, a, { from: T0 + 10 * DAY, to: T0 + 11 * DAY });
      assert.deepEqual(empty, {
        byDay: [{ date: '2026-03-20', usd: 0, diem: 0, requests: 0, promptTokens: 0, completionTokens: 0 }],
        byModel: [],
        byKey: [],
        byUnit: [],
      });
    });

    test('bad arguments are refused before any query', async () => {
      await assert.rejects(usageHistory(store, a, { page: 0, limit: 10 }), RangeError);
      await assert.rejects(usageHistory(store, a, { page: 1, limit: 0 }), RangeError);
      await assert.rejects(usageHistory(store, a, { page: 1.5, limit: 10 }), RangeError);
      await assert.rejects(usageAnalytics(store, a, { from: T0, to: T0 }), RangeError);
      await assert.rejects(usageAnalytics(store, a, { from: T0 + 1, to: T0 }), RangeError);
    });
  });
}

for (const backend of ['sqlite', 'postgres'] as const) {
  describe(`usage units on ${backend}`, () => {
    let store: Store;
    let cleanup: () => Promise<void>;
    before(async () => ({ store, dispose: cleanup } = await freshStore(backend)));
    after(() => cleanup());

    const row = (store: Store, id: string, account: string, model: string, endpoint: string, unit: string, quantity: number, usd: number) =>
      store.run(
        `INSERT INTO usage (request_id, account_id, key_id, model_id, endpoint, prompt_tokens, completion_tokens, cached_tokens, unit, quantity, usd, diem, created_at)
         VALUES ($1, $2, NULL, $3, $4, 0, 0, 0, $5, $6, $7, 0, $8)`,
        [id, account, model, endpoint, unit, quantity, usd, T0],
      );

    test('history shows each row’s unit and quantity; analytics totals them by model and by unit', async () => {
      const c = (await createAccount(store, 'usage-units')).id;
      await row(store, 'u-1', c, 'flux', '/image/generate', 'image', 2, 40_000);
      await row(store, 'u-2', c, 'flux', '/image/generate', 'image', 1, 20_000);
      await row(store, 'u-3', c, 'kokoro', '/audio/speech', 'character', 1_500, 30);
      await row(store, 'u-4', c, 'augment:scrape', '/augment/scrape', 'call', 1, 5_000);
      const { rows } = await usageHistory(store, c, { page: 1, limit: 10 });
      assert.deepEqual(
        rows.map((r) => [r.requestId, r.unit, r.quantity]),
        [
          ['u-4', 'call', 1],
          ['u-3', 'character', 1_500],
          ['u-2', 'image', 1],
          ['u-1', 'image', 2],
        ],
      );
      const r = await usageAnalytics(store, c, { from: T0, to: T0 + DAY });
      assert.deepEqual(
        r.byModel.map((m) => [m.modelId, m.unit, m.quantity, m.requests]),
        [
          ['flux', 'image', 3, 2],
          ['augment:scrape', 'call', 1, 1],
          ['kokoro', 'character', 1_500, 1],
        ],
      );
      assert.deepEqual(r.byUnit, [
        { unit: 'image', quantity: 3, usd: 0.06, diem: 0, requests: 2 },
        { unit: 'call', quantity: 1, usd: 0.005, diem: 0, requests: 1 },
        { unit: 'character', quantity: 1_500, usd: 0.00003, diem: 0, requests: 1 },
      ]);
    });

    test('migration 8 counts earlier rows in tokens, the augment endpoints’ in calls', async () => {
      const c = (await createAccount(store, 'usage-migrated')).id;
      // Rows as written before the migration: no unit or quantity given (the column defaults).
      for (const [id, endpoint] of [
        ['m-1', '/chat/completions'],
        ['m-2', '/augment/search'],
      ]) {
        await store.run(
          `INSERT INTO usage (request_id, account_id, key_id, model_id, endpoint, prompt_tokens, completion_tokens, cached_tokens, usd, diem, created_at)
           VALUES ($1, $2, NULL, 'm', $3, 12, 30, 0, 1, 0, $4)`,
          [id, c, endpoint, T0],
        );
      }
      const backfill = MIGRATIONS.find((m) => m.version === 8)!.sql.filter((sql): sql is string => typeof sql === 'string' && sql.startsWith('UPDATE'));
      assert.equal(backfill.length, 2);
      for (const sql of backfill) await store.run(`${sql}${sql.includes('WHERE') ? ' AND' : ' WHERE'} account_id = $1`, [c]);
      const { rows } = await usageHistory(store, c, { page: 1, limit: 10 });
      assert.deepEqual(
        rows.map((r) => [r.requestId, r.unit, r.quantity]),
        [
          ['m-2', 'call', 1],
          ['m-1', 'token', 42],
        ],
      );
    });
  });
}

describe('CSV writer (RFC 4180)', () => {
  test('header row, CRLF line ends, plain fields unquoted, numbers and empty values', () => {
    assert.equal(
      toCsv(
        ['a', 'b', 'c'],
        [
          ['x', 1.5, null],
          ['y', 0.000001, undefined],
        ],
      ),
      'a,b,c\r\nx,1.5,\r\ny,0.000001,\r\n',
    );
    assert.equal(toCsv(['only'], []), 'only\r\n');
    assert.equal(csvField(true), 'true');
    assert.equal(csvField(-3), '-3'); // a number is data, not text: no formula guard
  });

  test('fields with a comma, quote, CR or LF are quoted and quotes doubled', () => {
    assert.equal(csvField('a,b'), '"a,b"');
    assert.equal(csvField('say "hi"'), '"say ""hi"""');
    assert.equal(csvField('line1\nline2'), '"line1\nline2"');
    assert.equal(csvField('cr\rhere'), '"cr\rhere"');
    assert.equal(csvField('"'), '""""');
    assert.equal(csvField(''), '');
  });

  test('text starting with = + - @ (or tab/CR) is prefixed with a quote so spreadsheets never evaluate it', () => {
    assert.equal(csvField('=HYPERLINK("http://x","y")'), `"'=HYPERLINK(""http://x"",""y"")"`);
    assert.equal(csvField('+1'), "'+1");
    assert.equal(csvField('-2+3'), "'-2+3");
    assert.equal(csvField('@SUM(A1)'), "'@SUM(A1)");
    assert.equal(csvField('\tcmd'), "'\tcmd");
    assert.equal(csvField('a=b'), 'a=b');
  });

  test('records must be as long as the header; numbers must be finite', () => {
    assert.throws(() => toCsv(['a', 'b'], [['x']]), RangeError);
    assert.throws(() => csvField(Number.NaN), RangeError);
  });
});
