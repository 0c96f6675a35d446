// The beta billing API (ADMIN keys): balance, usage history (JSON and CSV, filters, pages) and usage analytics,
// checked against usage produced by real chat requests through the scripted engine.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { accountKeys, authenticate } from '../../lib/auth/keys.ts';
import { getBalances } from '../../lib/billing/ledger.ts';
import { get, type Harness, post, sseEvents, startHarness } from '../support/harness.ts';
import { createTestDatabase } from '../support/pg.ts';

const DAY = 86_400_000;
const FIELDS = [
  'timestamp',
  'requestId',
  'apiKeyId',
  'modelId',
  'endpoint',
  'promptTokens',
  'completionTokens',
  'cachedTokens',
  'searches',
  'scrapedUrls',
  'usd',
  'diem',
  'unit',
  'quantity',
];

let h: Harness;
let accountId: string;
let admin: string;
let inference: string;
let keys: { id: string; secret: string; description: string }[];
let otherAdmin: string;
/** What each successful chat answered: its request id, key, model, usage and cost. */
const made: { requestId: string; keyId: string; model: string; promptTokens: number; completionTokens: number; usd: number; diem: number }[] = [];
let batch1: string[];
let batch2: string[];
let tMid: number;

const call = (path: string, key: string | undefined, headers: Record<string, string> = {}) => get(h, path, key, headers);

async function chat(key: { id: string; secret: string }, model: string, tokens: number, stream: boolean) {
  const r = await post(h, '/chat/completions', key.secret, { model, stream, messages: [{ role: 'user', content: `Count for me [[tokens:${tokens}]]` }] });
  assert.equal(r.status, 200, r.text);
  const body = stream ? sseEvents(r.text).find((e) => e !== '[DONE]' && e.usage) : r.json;
  const id = stream ? sseEvents(r.text)[0].id : r.json.id;
  const requestId = id.replace(/^chatcmpl-/, '');
  made.push({ requestId, keyId: key.id, model, promptTokens: body.usage.prompt_tokens, completionTokens: body.usage.completion_tokens, ...body.cost });
  return requestId;
}

/** An RFC 4180 reader: quoted fields with doubled quotes and embedded separators, CRLF record ends. */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let i = 0;
  let quoted = false;
  while (i < text.length) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') (field += '"'), (i += 2);
      else if (c === '"') (quoted = false), i++;
      else (field += c), i++;
    } else if (c === '"' && field === '') (quoted = true), i++;
    else if (c === ',') record.push(field), (field = ''), i++;
    else if (c === '\r' && text[i + 1] === '\n') {
      record.push(field);
      records.push(record);
      (record = []), (field = ''), (i += 2);
    } else if (c === '\n' || c === '\r') throw new Error(`bare line break at ${i}: records must end with CRLF`);
    else (field += c), i++;
  }
  assert.equal(field + record.join(''), '', 'the document ends with CRLF');
  return records;
}

const micros = (n: number) => Math.round(n * 1e6);
const sum = (xs: number[]) => xs.reduce((s, x) => s + x, 0);
const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

before(async () => {
  h = await startHarness();
  // DIEM covers the first few requests, USD the rest, so rows carry both currencies.
  const acct = await h.newAccount({ usd: 10, diemDaily: 0.0002 });
  accountId = acct.accountId;
  inference = acct.key;
  const first = await authenticate(h.svc.store, acct.key);
  const second = await accountKeys(h.svc.store, accountId).create({ type: 'INFERENCE', description: 'batch jobs, "nightly"' });
  keys = [
    { id: first.keyId, secret: acct.key, description: '' },
    { id: second.key.id, secret: second.secret, description: 'batch jobs, "nightly"' },
  ];
  admin = (await accountKeys(h.svc.store, accountId).create({ type: 'ADMIN', description: 'ops' })).secret;

  batch1 = [
    await chat(keys[0], 'scripted-model', 5, false),
    await chat(keys[0], 'scripted-model', 7, true),
    await chat(keys[1], 'plain-model', 3, false),
    await chat(keys[0], 'plain-model', 9, true),
    await chat(keys[1], 'scripted-model', 4, false),
    await chat(keys[0], 'scripted-model', 6, false),
  ];
  await h.svc.ledger.drain();
  // A gap in time between the batches, so a date-time bound can split them.
  await sleep(5);
  tMid = Date.now();
  await sleep(5);
  batch2 = [
    await chat(keys[1], 'scripted-model', 8, true),
    await chat(keys[1], 'plain-model', 2, false),
    await chat(keys[0], 'plain-model', 11, false),
    await chat(keys[1], 'scripted-model', 5, false),
    await chat(keys[0], 'scripted-model', 1, true),
  ];
  await h.svc.ledger.drain();

  // Another account's usage, which the first account's admin key must never see.
  const other = await h.newAccount({ usd: 1, keyType: 'ADMIN' });
  otherAdmin = other.key;
  const otherInference = await accountKeys(h.svc.store, other.accountId).create({ type: 'INFERENCE' });
  await post(h, '/chat/completions', otherInference.secret, { model: 'scripted-model', messages: [{ role: 'user', content: '[[tokens:3]]' }] });
  await h.svc.ledger.drain();
});
after(() => h.close());

async function history(query = '', key = admin, headers: Record<string, string> = {}) {
  const r = await call(`/billing/usage-history${query ? `?${query}` : ''}`, key, headers);
  assert.equal(r.status, 200, r.text);
  return r;
}
const requestIds = (rows: { requestId: string }[]) => rows.map((r) => r.requestId);

describe('GET /billing/balance', () => {
  test('spendable balances, the currency in use, the daily allowance and the next reset', async () => {
    const nextMidnight = () => new Date((Math.floor(Date.now() / DAY) + 1) * DAY).toISOString();
    const resetBefore = nextMidnight();
    const r = await call('/billing/balance', admin);
    const resetAfter = nextMidnight();
    assert.equal(r.status, 200, r.text);
    assert.equal(r.headers.get('x-service-beta'), 'true');
    assert.ok(r.headers.get('cf-ray'));
    const b = await getBalances(h.svc.store, accountId);
    const usdSpent = sum(made.map((m) => micros(m.usd)));
    const diemSpent = sum(made.map((m) => micros(m.diem)));
    assert.equal(b.usd, 10_000_000 - usdSpent);
    assert.ok([resetBefore, resetAfter].includes(r.json.data.diemResetsAt), r.json.data.diemResetsAt);
    assert.deepEqual(r.json, {
      beta: true,
      data: {
        canConsume: true,
        consumptionCurrency: b.diem > 0 ? 'DIEM' : 'USD',
        balances: { usd: b.usd / 1e6, diem: b.diem / 1e6 },
        diemEpochAllocation: 0.0002,
        diemDailyAllowance: 0.0002,
        diemResetsAt: r.json.data.diemResetsAt,
      },
    });
    assert.ok(diemSpent > 0 && usdSpent > 0, 'the usage spent both currencies');
  });

  test('DIEM first when there is any; null and canConsume false when nothing is spendable', async () => {
    const diemOnly = await h.newAccount({ usd: 0, diemDaily: 2.5, keyType: 'ADMIN' });
    const d = await call('/billing/balance', diemOnly.key);
    assert.deepEqual(
      { ...d.json.data, diemResetsAt: undefined },
      {
        canConsume: true,
        consumptionCurrency: 'DIEM',
        balances: { usd: 0, diem: 2.5 },
        diemEpochAllocation: 2.5,
        diemDailyAllowance: 2.5,
        diemResetsAt: undefined,
      },
    );
    assert.match(d.json.data.diemResetsAt, /^\d{4}-\d{2}-\d{2}T00:00:00\.000Z$/);
    const empty = await h.newAccount({ usd: 0, keyType: 'ADMIN' });
    const e = await call('/billing/balance', empty.key);
    assert.equal(e.json.data.canConsume, false);
    assert.equal(e.json.data.consumptionCurrency, null);
    assert.deepEqual(e.json.data.balances, { usd: 0, diem: 0 });
    const usdOnly = await h.newAccount({ usd: 3, keyType: 'ADMIN' });
    assert.equal((await call('/billing/balance', usdOnly.key)).json.data.consumptionCurrency, 'USD');
  });
});

describe('GET /billing/usage-history', () => {
  test('every usage row of the account, newest first, each matching the chat response that made it', async () => {
    const r = await history();
    assert.equal(r.headers.get('x-service-beta'), 'true');
    assert.equal(r.json.beta, true);
    const rows = r.json.data;
    assert.equal(rows.length, made.length);
    assert.deepEqual(new Set(requestIds(rows)), new Set(made.map((m) => m.requestId)));
    for (let i = 1; i < rows.length; i++) assert.ok(rows[i - 1].timestamp >= rows[i].timestamp, 'newest first');
    assert.deepEqual(requestIds(rows.slice(0, batch2.length)).sort(), [...batch2].sort());
    for (const row of rows) {
      const m = made.find((x) => x.requestId === row.requestId)!;
      assert.deepEqual(Object.keys(row), FIELDS);
      assert.deepEqual(
        {
          apiKeyId: row.apiKeyId,
          modelId: row.modelId,
          endpoint: row.endpoint,
          promptTokens: row.promptTokens,
          completionTokens: row.completionTokens,
          cachedTokens: row.cachedTokens,
          usd: row.usd,
          diem: row.diem,
          unit: row.unit,
          quantity: row.quantity,
        },
        {
          apiKeyId: m.keyId,
          modelId: m.model,
          endpoint: '/chat/completions',
          promptTokens: m.promptTokens,
          completionTokens: m.completionTokens,
          cachedTokens: 0,
          usd: m.usd,
          diem: m.diem,
          unit: 'token',
          quantity: m.promptTokens + m.completionTokens,
        },
      );
      assert.match(row.timestamp, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    }
    assert.deepEqual(
      [r.headers.get('x-pagination-limit'), r.headers.get('x-pagination-page'), r.headers.get('x-pagination-total'), r.headers.get('x-pagination-total-pages')],
      ['100', '1', String(made.length), '1'],
    );
  });

  test('filters: date-time bounds (end exclusive), dates, key, model, and their combination', async () => {
    const ids = async (q: string) => {
      const r = await history(q);
      assert.equal(r.headers.get('x-pagination-total'), String(r.json.data.length));
      return requestIds(r.json.data).sort();
    };
    const mid = encodeURIComponent(new Date(tMid).toISOString());
    assert.deepEqual(await ids(`startDate=${mid}`), [...batch2].sort());
    assert.deepEqual(await ids(`endDate=${mid}`), [...batch1].sort());
    // The same instant with a +02:00 offset.
    const offset = new Date(tMid + 2 * 3_600_000).toISOString().replace('Z', '+02:00');
    assert.deepEqual(await ids(`startDate=${encodeURIComponent(offset)}`), [...batch2].sort());
    const all = made.map((m) => m.requestId).sort();
    const rows = (await history()).json.data;
    const first = Date.parse(rows.at(-1).timestamp);
    const last = Date.parse(rows[0].timestamp);
    assert.deepEqual(await ids(`startDate=${utcDay(first)}&endDate=${utcDay(last + DAY)}`), all);
    assert.deepEqual(await ids(`endDate=${utcDay(first)}`), []);
    // A row's own timestamp as the exclusive end leaves that row out; as the start, keeps it.
    const newest = rows[0].timestamp;
    assert.deepEqual(await ids(`endDate=${encodeURIComponent(newest)}`), requestIds(rows.filter((x: any) => x.timestamp < newest)).sort());
    assert.ok((await ids(`startDate=${encodeURIComponent(newest)}`)).includes(rows[0].requestId));
    const byKey = (k: number) =>
      made
        .filter((m) => m.keyId === keys[k].id)
        .map((m) => m.requestId)
        .sort();
    assert.deepEqual(await ids(`apiKeyId=${keys[1].id}`), byKey(1));
    assert.deepEqual(await ids(`apiKeyId=${keys[0].id}`), byKey(0));
    assert.deepEqual(
      await ids('modelId=plain-model'),
      made
        .filter((m) => m.model === 'plain-model')
        .map((m) => m.requestId)
        .sort(),
    );
    const combined = made
      .filter((m) => m.model === 'scripted-model' && m.keyId === keys[1].id && batch2.includes(m.requestId))
      .map((m) => m.requestId)
      .sort();
    assert.equal(combined.length, 2);
    assert.deepEqual(await ids(`modelId=scripted-model&apiKeyId=${keys[1].id}&startDate=${mid}`), combined);
    assert.deepEqual(await ids('modelId=no-such-model'), []);
  });

  test('pages: limit and page slice the same order, with the pagination headers; past the end is empty', async () => {
    const all = requestIds((await history()).json.data);
    const pages: string[][] = [];
    for (let page = 1; page <= 3; page++) {
      const r = await history(`limit=4&page=${page}`);
      assert.equal(r.headers.get('x-pagination-limit'), '4');
      assert.equal(r.headers.get('x-pagination-page'), String(page));
      assert.equal(r.headers.get('x-pagination-total'), '11');
      assert.equal(r.headers.get('x-pagination-total-pages'), '3');
      pages.push(requestIds(r.json.data));
    }
    assert.deepEqual(
      pages.map((p) => p.length),
      [4, 4, 3],
    );
    assert.deepEqual(pages.flat(), all);
    const beyond = await history('limit=4&page=4');
    assert.deepEqual(beyond.json, { beta: true, data: [] });
    assert.equal(beyond.headers.get('x-pagination-total'), '11');
    const filtered = await history(`limit=2&page=2&apiKeyId=${keys[1].id}`);
    assert.equal(filtered.headers.get('x-pagination-total'), String(made.filter((m) => m.keyId === keys[1].id).length));
    assert.equal(filtered.headers.get('x-pagination-total-pages'), String(Math.ceil(made.filter((m) => m.keyId === keys[1].id).length / 2)));
  });

  test('Accept: text/csv gives the same page as CSV, field for field, with the same headers', async () => {
    const json = await history('limit=4&page=2');
    const csv = await history('limit=4&page=2', admin, { accept: 'text/csv' });
    assert.equal(csv.headers.get('content-type'), 'text/csv; charset=utf-8');
    assert.match(csv.headers.get('content-disposition')!, /^attachment; filename="billing-usage-history-\d{8}T\d{6}Z\.csv"$/);
    for (const name of ['x-pagination-limit', 'x-pagination-page', 'x-pagination-total', 'x-pagination-total-pages', 'x-service-beta']) {
      assert.equal(csv.headers.get(name), json.headers.get(name), name);
    }
    assert.ok(csv.headers.get('cf-ray'));
    assert.match(csv.headers.get('x-service-version')!, /^\d+\.\d+$/);
    assert.equal(Number(csv.headers.get('content-length')), Buffer.byteLength(csv.text));
    const [header, ...records] = parseCsv(csv.text);
    assert.deepEqual(header, FIELDS);
    assert.equal(records.length, 4);
    records.forEach((rec, i) => {
      const row = json.json.data[i];
      const expected = FIELDS.map((f) => (row[f] === null ? '' : String(row[f])));
      assert.deepEqual(rec, expected);
      // Numbers read back to the same values as the JSON.
      assert.equal(Number(rec[FIELDS.indexOf('usd')]), row.usd);
      assert.equal(Number(rec[FIELDS.indexOf('promptTokens')]), row.promptTokens);
    });
    const preferred = await history('limit=4&page=2', admin, { accept: 'application/json;q=0.5, text/csv' });
    assert.equal(preferred.headers.get('content-type'), 'text/csv; charset=utf-8');
    const jsonFirst = await history('limit=1', admin, { accept: 'application/json, text/csv;q=0.1' });
    assert.match(jsonFirst.headers.get('content-type')!, /^application\/json/);
    const empty = await history('limit=4&page=9', admin, { accept: 'text/csv' });
    assert.deepEqual(parseCsv(empty.text), [FIELDS]);
  });

  test('an admin key sees its own account only, whatever the filters', async () => {
    const mine = await history('', otherAdmin);
    assert.equal(mine.json.data.length, 1);
    assert.ok(!made.some((m) => m.requestId === mine.json.data[0].requestId));
    assert.deepEqual((await history(`apiKeyId=${keys[0].id}`, otherAdmin)).json.data, []);
  });
});

describe('GET /billing/usage-analytics', () => {
  test('totals by day, model and key equal the sums of the history rows of the same range', async () => {
    const rows: any[] = (await history()).json.data;
    const firstDay = utcDay(Date.parse(rows.at(-1).timestamp));
    const lastDay = utcDay(Date.parse(rows[0].timestamp));
    const startDate = utcDay(Date.parse(firstDay) - 2 * DAY);
    const r = await call(`/billing/usage-analytics?startDate=${startDate}&endDate=${lastDay}`, admin);
    assert.equal(r.status, 200, r.text);
    assert.equal(r.headers.get('x-service-beta'), 'true');
    assert.equal(r.json.beta, true);
    const { data } = r.json;
    assert.deepEqual(Object.keys(data), [
      'startDate',
      'endDate',
      'byDay',
      'byModel',
      'byKey',
      'byUnit',
      // The public API's series beside the spec's totals (its byModel and byKey fields are merged into the spec's).
      'lookback',
      'byDate',
      'byModelDaily',
      'byModelDailyUsd',
      'topModels',
      'byKeyDaily',
      'byKeyDailyUsd',
      'topKeyNames',
    ]);
    for (const m of data.byModel) {
      assert.deepEqual([m.modelName, m.unitType, m.modelType, m.totalUsd, m.totalDiem, m.totalUnits], [m.modelId, 'tokens', 'LLM', m.usd, m.diem, m.quantity]);
    }
    assert.equal(data.lookback, `${startDate}:${lastDay}`);
    assert.equal(data.startDate, startDate);
    assert.equal(data.endDate, lastDay);
    // Every day of the range, ascending, the two days before the usage present with zeros.
    const days = (Date.parse(lastDay) - Date.parse(startDate)) / DAY + 1;
    assert.deepEqual(
      data.byDay.map((d: any) => d.date),
      Array.from({ length: days }, (_, i) => utcDay(Date.parse(startDate) + i * DAY)),
    );
    assert.deepEqual(
      data.byDay.slice(0, 2),
      [startDate, utcDay(Date.parse(startDate) + DAY)].map((date) => ({ date, usd: 0, diem: 0, requests: 0, promptTokens: 0, completionTokens: 0 })),
    );
    for (const d of data.byDay) {
      const of = rows.filter((x) => x.timestamp.slice(0, 10) === d.date);
      assert.deepEqual(
        [micros(d.usd), micros(d.diem), d.requests, d.promptTokens, d.completionTokens],
        [
          sum(of.map((x) => micros(x.usd))),
          sum(of.map((x) => micros(x.diem))),
          of.length,
          sum(of.map((x) => x.promptTokens)),
          sum(of.map((x) => x.completionTokens)),
        ],
      );
    }
    assert.deepEqual(data.byModel.map((m: any) => m.modelId).sort(), ['plain-model', 'scripted-model']);
    for (const m of data.byModel) {
      const of = rows.filter((x) => x.modelId === m.modelId);
      assert.deepEqual(
        [micros(m.usd), micros(m.diem), m.requests, m.promptTokens, m.completionTokens, m.unit, m.quantity],
        [
          sum(of.map((x) => micros(x.usd))),
          sum(of.map((x) => micros(x.diem))),
          of.length,
          sum(of.map((x) => x.promptTokens)),
          sum(of.map((x) => x.completionTokens)),
          'token',
          sum(of.map((x) => x.quantity)),
        ],
      );
    }
    // Chat bills tokens only: one unit, its quantity every prompt and completion token.
    assert.deepEqual(
      data.byUnit.map((u: any) => [u.unit, u.quantity, u.requests, micros(u.usd), micros(u.diem)]),
      [
        [
          'token',
          sum(rows.map((x) => x.promptTokens + x.completionTokens)),
          rows.length,
          sum(rows.map((x) => micros(x.usd))),
          sum(rows.map((x) => micros(x.diem))),
        ],
      ],
    );
    assert.equal(data.byKey.length, 2);
    for (const k of data.byKey) {
      const of = rows.filter((x) => x.apiKeyId === k.apiKeyId);
      // A key is named by its description, or by its id when it has none.
      assert.equal(k.description, keys.find((x) => x.id === k.apiKeyId)!.description || k.apiKeyId);
      assert.deepEqual([k.totalUsd, k.totalDiem], [k.usd, k.diem]);
      assert.deepEqual([micros(k.usd), micros(k.diem), k.requests], [sum(of.map((x) => micros(x.usd))), sum(of.map((x) => micros(x.diem))), of.length]);
    }
    const spend = (t: any) => micros(t.usd) + micros(t.diem);
    for (const list of [data.byModel, data.byKey]) assert.ok(spend(list[0]) >= spend(list[1]), 'sorted by spend');
    assert.equal(sum(data.byDay.map((d: any) => d.requests)), made.length);
  });

  test('without dates: the last 7 days, ending today', async () => {
    const before = utcDay(Date.now());
    const r = await call('/billing/usage-analytics', admin);
    const afterDay = utcDay(Date.now());
    assert.equal(r.status, 200, r.text);
    assert.ok([before, afterDay].includes(r.json.data.endDate));
    assert.equal(r.json.data.startDate, utcDay(Date.parse(r.json.data.endDate) - 6 * DAY));
    assert.equal(r.json.data.byDay.length, 7);
    const ninety = await call(`/billing/usage-analytics?startDate=2026-01-01&endDate=2026-03-31`, admin);
    assert.equal(ninety.status, 200, ninety.text);
    assert.equal(ninety.json.data.byDay.length, 90);
  });
});

const ENTRY_FIELDS = ['timestamp', 'sku', 'units', 'pricePerUnitUsd', 'amount', 'currency', 'notes', 'inferenceDetails'];
const ENTRY_CSV = [
  'timestamp',
  'sku',
  'pricePerUnitUsd',
  'units',
  'amount',
  'currency',
  'notes',
  'inferenceDetails.requestId',
  'inferenceDetails.inferenceExecutionTime',
  'inferenceDetails.promptTokens',
  'inferenceDetails.completionTokens',
];

/** Every page of the cursor form from `query` on: the entries in order, and how many pages it took. */
async function allEntries(query: string, key = admin) {
  const entries: any[] = [];
  let r = await history(query, key);
  let pages = 1;
  for (;;) {
    assert.deepEqual(Object.keys(r.json), ['data', 'nextCursor']);
    entries.push(...r.json.data);
    if (r.json.nextCursor === null) return { entries, pages };
    r = await history(`cursor=${r.json.nextCursor}`, key);
    pages++;
  }
}

describe('GET /billing/usage-history: the public cursor form', () => {
  test('pages of pageSize entries, oldest first, each request charged once per currency it was paid in', async () => {
    const { entries, pages } = await allEntries('pageSize=10');
    assert.ok(pages >= 2, 'more than one page');
    for (let i = 1; i < entries.length; i++) assert.ok(entries[i - 1].timestamp <= entries[i].timestamp, 'oldest first');
    for (const e of entries) {
      assert.deepEqual(Object.keys(e), ENTRY_FIELDS);
      assert.deepEqual(Object.keys(e.inferenceDetails), ['requestId', 'promptTokens', 'completionTokens', 'inferenceExecutionTime']);
      assert.ok(e.amount < 0, 'a debit');
      assert.equal(e.notes, 'API Inference');
      assert.match(e.sku, /^(scripted|plain)-model-llm-mtoken$/);
      // units x price = amount (to the rounding of the price).
      assert.ok(Math.abs(e.units * e.pricePerUnitUsd + e.amount) < 1e-6, JSON.stringify(e));
    }
    for (const m of made) {
      const of = entries.filter((e) => e.inferenceDetails.requestId === m.requestId);
      const paid = (c: string) => sum(of.filter((e) => e.currency === c).map((e) => -micros(e.amount)));
      assert.deepEqual([paid('USD'), paid('DIEM')], [micros(m.usd), micros(m.diem)], m.requestId);
      assert.deepEqual([of[0].inferenceDetails.promptTokens, of[0].inferenceDetails.completionTokens], [m.promptTokens, m.completionTokens]);
      assert.ok(Math.abs(sum(of.map((e) => e.units)) - (m.promptTokens + m.completionTokens) / 1e6) < 1e-8);
    }
    assert.equal(new Set(entries.map((e) => `${e.inferenceDetails.requestId}/${e.currency}`)).size, entries.length, 'no entry twice');
    assert.ok(entries.some((e) => e.currency === 'DIEM') && entries.some((e) => e.currency === 'USD'));
  });

  test('filters: start and end timestamps (end exclusive), currency; a continuation keeps them', async () => {
    const mid = new Date(tMid).toISOString();
    const ids = (entries: any[]) => [...new Set(entries.map((e) => e.inferenceDetails.requestId))].sort();
    assert.deepEqual(ids((await allEntries(`startTimestamp=${mid}&pageSize=10`)).entries), [...batch2].sort());
    assert.deepEqual(ids((await allEntries(`endTimestamp=${mid}&pageSize=10`)).entries), [...batch1].sort());
    const diem = await allEntries('currency=DIEM&pageSize=10');
    assert.ok(diem.entries.every((e) => e.currency === 'DIEM'));
    assert.deepEqual(
      ids(diem.entries),
      made
        .filter((m) => m.diem > 0)
        .map((m) => m.requestId)
        .sort(),
    );
    const usd = await allEntries('currency=USD&pageSize=10');
    assert.deepEqual(
      ids(usd.entries),
      made
        .filter((m) => m.usd > 0)
        .map((m) => m.requestId)
        .sort(),
    );
    assert.deepEqual((await history('currency=BUNDLED_CREDITS')).json, { data: [], nextCursor: null });
  });

  test('a cursor is sent alone, only by the account it was given to, and unaltered', async () => {
    const first = await history('pageSize=10');
    const cursor = first.json.nextCursor;
    assert.match(cursor, /^[A-Za-z0-9_-]{1,512}$/);
    const cases: [string, string | undefined, RegExp][] = [
      [`cursor=${cursor}&pageSize=10`, admin, /sends only cursor/],
      [`cursor=${cursor.slice(0, -1)}${cursor.endsWith('A') ? 'B' : 'A'}`, admin, /restart from the first page/],
      [`cursor=${cursor}`, otherAdmin, /restart from the first page/],
      ['cursor=not*a*cursor', admin, /cursor/],
      ['pageSize=10&page=2', admin, /not both/],
      ['pageSize=9', admin, /pageSize/],
      ['pageSize=1001', admin, /pageSize/],
      ['currency=EUR', admin, /currency/],
      ['startTimestamp=2026-03-01', admin, /startTimestamp/],
      ['startTimestamp=2026-03-02T00:00:00Z&endTimestamp=2026-03-01T00:00:00Z', admin, /endTimestamp/],
    ];
    for (const [query, key, message] of cases) {
      const r = await call(`/billing/usage-history?${query}`, key);
      assert.equal(r.status, 400, `${query}: ${r.text}`);
      assert.equal(r.json.code, 'INVALID_REQUEST');
      assert.match(r.json.error, message, query);
    }
    // The refused continuations did not spoil the cursor.
    assert.equal((await history(`cursor=${cursor}`)).status, 200);
  });

  test('Accept: text/csv: the public columns, the continuation in x-next-cursor, the public file name', async () => {
    const json = await allEntries('pageSize=10');
    const first = await history('pageSize=10', admin, { accept: 'text/csv' });
    assert.equal(first.headers.get('content-type'), 'text/csv; charset=utf-8');
    assert.match(first.headers.get('content-disposition')!, /^attachment; filename="billing-usage-history-\d{8}T\d{6}Z\.csv"$/);
    const next = first.headers.get('x-next-cursor');
    assert.ok(next);
    const last = await history(`cursor=${next}`, admin, { accept: 'text/csv' });
    const records = [...parseCsv(first.text).slice(1), ...parseCsv(last.text).slice(1)];
    assert.deepEqual(parseCsv(first.text)[0], ENTRY_CSV);
    assert.equal(records.length, json.entries.length);
    records.forEach((rec, i) => {
      const e = json.entries[i];
      assert.deepEqual(rec, [
        e.timestamp,
        e.sku,
        String(e.pricePerUnitUsd),
        String(e.units),
        String(e.amount),
        e.currency,
        e.notes,
        e.inferenceDetails.requestId,
        '',
        String(e.inferenceDetails.promptTokens),
        String(e.inferenceDetails.completionTokens),
      ]);
    });
    if (json.pages === 2) assert.equal(last.headers.get('x-next-cursor'), null, 'absent on the last page');
  });
});

describe('GET /billing/usage (retired)', () => {
  test('410 pointing at usage-history, with Deprecation, Sunset and Link, for anyone', async () => {
    for (const key of [admin, undefined]) {
      const r = await call('/billing/usage?page=1', key);
      assert.equal(r.status, 410);
      assert.equal(r.json.code, 'ENDPOINT_RETIRED');
      assert.match(r.json.error, /usage-history/);
      assert.equal(r.headers.get('deprecation'), '@1783555200');
      assert.equal(r.headers.get('sunset'), 'Wed, 16 Sep 2026 00:00:00 GMT');
      assert.equal(r.headers.get('link'), '</api/v1/billing/usage-history>; rel="successor-version"');
    }
  });
});

describe('GET /billing/usage-analytics: lookback and the public series', () => {
  test('lookback sets the days (clamped at 90); the daily series add up to the totals', async () => {
    const three = await call('/billing/usage-analytics?lookback=3d', admin);
    assert.equal(three.status, 200, three.text);
    assert.equal(three.json.data.lookback, '3d');
    assert.equal(three.json.data.byDay.length, 3);
    assert.equal(three.json.data.byDate.length, 3);
    const clamped = await call('/billing/usage-analytics?lookback=365d', admin);
    assert.equal(clamped.json.data.byDay.length, 90);
    const { data } = await call('/billing/usage-analytics', admin).then((r) => r.json);
    assert.equal(data.lookback, '7d');
    assert.deepEqual(
      data.byDate,
      data.byDay.map((d: any) => ({ date: d.date, USD: d.usd, DIEM: d.diem })),
    );
    assert.deepEqual([...data.topModels].sort(), ['plain-model', 'scripted-model']);
    for (const m of data.byModel) {
      const series = (list: any[]) => sum(list.map((d) => micros(d[m.modelId])));
      assert.equal(series(data.byModelDaily), micros(m.diem), m.modelId);
      assert.equal(series(data.byModelDailyUsd), micros(m.usd), m.modelId);
    }
    assert.deepEqual(
      data.byModelDaily.map((d: any) => d.date),
      data.byDay.map((d: any) => Date.parse(`${d.date}T00:00:00Z`)),
    );
    // Keys are named by description, or by id when they have none.
    const names = data.byKey.map((k: any) => k.description || k.apiKeyId);
    assert.deepEqual([...data.topKeyNames].sort(), [...names].sort());
    for (const k of data.byKey) {
      const name = k.description || k.apiKeyId;
      assert.equal(sum(data.byKeyDaily.map((d: any) => micros(d[name]))), micros(k.diem), name);
    }
    for (const q of ['lookback=0d', 'lookback=7', 'lookback=7d&startDate=2026-03-01']) {
      const r = await call(`/billing/usage-analytics?${q}`, admin);
      assert.equal(r.status, 400, q);
      assert.match(r.json.error, /lookback/);
    }
  });
});

describe('the public shapes (LAGOON_WIRE_NAME=venice) on PostgreSQL', () => {
  let v: Harness;
  let vAdmin: string;
  let dropDb: () => Promise<void>;
  const vcall = (path: string, headers: Record<string, string> = {}) => get(v, path, vAdmin, headers);

  before(async () => {
    const db = await createTestDatabase();
    dropDb = db.drop;
    v = await startHarness({ databaseUrl: db.url, env: { LAGOON_WIRE_NAME: 'venice' } });
    const acct = await v.newAccount({ usd: 5, diemDaily: 0.00005 });
    vAdmin = (await accountKeys(v.svc.store, acct.accountId).create({ type: 'ADMIN', description: 'ops' })).secret;
    for (const tokens of [4, 6, 8]) {
      const r = await post(v, '/chat/completions', acct.key, { model: 'scripted-model', messages: [{ role: 'user', content: `[[tokens:${tokens}]]` }] });
      assert.equal(r.status, 200, r.text);
    }
    await v.svc.ledger.drain();
  });
  after(async () => {
    await v.close();
    await dropDb();
  });

  test('balance: the public body, no envelope', async () => {
    const r = await vcall('/billing/balance');
    assert.equal(r.status, 200, r.text);
    assert.equal(r.headers.get('x-venice-beta'), 'true');
    assert.deepEqual(Object.keys(r.json), ['canConsume', 'consumptionCurrency', 'balances', 'diemEpochAllocation']);
    assert.deepEqual(Object.keys(r.json.balances), ['diem', 'usd']);
    assert.equal(r.json.diemEpochAllocation, 0.00005);
    assert.equal(r.json.canConsume, true);
  });

  test('usage-history: the cursor form by default, the page form when asked for', async () => {
    const r = await vcall('/billing/usage-history');
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(Object.keys(r.json), ['data', 'nextCursor']);
    assert.equal(r.json.nextCursor, null);
    assert.equal(new Set(r.json.data.map((e: any) => e.inferenceDetails.requestId)).size, 3);
    const paged = await vcall('/billing/usage-history?page=1&limit=2');
    assert.equal(paged.json.data.length, 2);
    assert.equal(paged.headers.get('x-pagination-total'), '3');
    const walked: string[] = [];
    let page = await vcall('/billing/usage-history?pageSize=10&currency=USD');
    walked.push(...page.json.data.map((e: any) => e.inferenceDetails.requestId));
    while (page.json.nextCursor) {
      page = await vcall(`/billing/usage-history?cursor=${page.json.nextCursor}`);
      walked.push(...page.json.data.map((e: any) => e.inferenceDetails.requestId));
    }
    assert.deepEqual(
      walked,
      r.json.data.filter((e: any) => e.currency === 'USD').map((e: any) => e.inferenceDetails.requestId),
    );
  });

  test('usage-analytics: the public body', async () => {
    const r = await vcall('/billing/usage-analytics?lookback=2d');
    assert.equal(r.status, 200, r.text);
    // Exactly the public document's fields (the USD daily series are the spec mode's addition).
    assert.deepEqual(Object.keys(r.json), ['lookback', 'byDate', 'byModel', 'byModelDaily', 'topModels', 'byKey', 'byKeyDaily', 'topKeyNames']);
    assert.equal(r.json.lookback, '2d');
    assert.deepEqual(
      r.json.byModel.map((m: any) => Object.keys(m)),
      [['modelName', 'unitType', 'modelType', 'totalUsd', 'totalDiem', 'totalUnits']],
    );
    assert.deepEqual([r.json.byModel[0].modelName, r.json.byModel[0].unitType, r.json.byModel[0].modelType], ['scripted-model', 'tokens', 'LLM']);
    assert.deepEqual(r.json.topModels, ['scripted-model']);
    assert.deepEqual(
      r.json.byKey.map((k: any) => Object.keys(k)),
      [['apiKeyId', 'description', 'totalUsd', 'totalDiem', 'totalUnits']],
    );
    assert.equal(r.json.byKey[0].totalUnits, r.json.byModel[0].totalUnits);
  });
});

describe('authentication and validation', () => {
  const paths = ['/billing/balance', '/billing/usage-history', '/billing/usage-analytics'];
  // A key of its own for each case: failed requests count towards a per-key abuse block, which these cases must
  // neither trip nor share with the other tests.
  const freshAdmin = async () => (await accountKeys(h.svc.store, accountId).create({ type: 'ADMIN' })).secret;

  test('an INFERENCE key gets 401 Admin API key required; no key gets 401', async () => {
    for (const p of paths) {
      const r = await call(p, inference);
      assert.equal(r.status, 401);
      assert.deepEqual(r.json, { error: 'Admin API key required', code: 'ADMIN_KEY_REQUIRED' });
      assert.equal(r.headers.get('x-service-beta'), 'true');
      const anon = await call(p, undefined);
      assert.equal(anon.status, 401);
      assert.equal(anon.json.code, 'AUTHENTICATION_FAILED');
    }
  });

  const bad: [string, string][] = [
    ['/billing/usage-history?foo=1', 'foo'],
    ['/billing/usage-history?startDate=yesterday', 'startDate'],
    ['/billing/usage-history?startDate=2026-02-30', 'startDate'],
    ['/billing/usage-history?endDate=2026-03-01T10:00:00', 'endDate'],
    ['/billing/usage-history?startDate=2026-03-02&endDate=2026-03-01', 'endDate'],
    ['/billing/usage-history?startDate=2026-03-01&endDate=2026-03-01', 'endDate'],
    ['/billing/usage-history?page=0', 'page'],
    ['/billing/usage-history?page=-1', 'page'],
    ['/billing/usage-history?limit=501', 'limit'],
    ['/billing/usage-history?limit=0', 'limit'],
    ['/billing/usage-history?limit=ten', 'limit'],
    ['/billing/usage-history?limit=2.5', 'limit'],
    ['/billing/usage-history?apiKeyId=', 'apiKeyId'],
    ['/billing/usage-analytics?startDate=2026-03-01T00:00:00Z', 'startDate'],
    ['/billing/usage-analytics?endDate=03/01/2026', 'endDate'],
    ['/billing/usage-analytics?limit=3', 'limit'],
    ['/billing/balance?verbose=1', 'verbose'],
  ];
  for (const [path, field] of bad) {
    test(`400 with the detailed body: ${path}`, async () => {
      const r = await call(path, await freshAdmin());
      assert.equal(r.status, 400, r.text);
      assert.equal(r.json.code, 'INVALID_REQUEST');
      assert.match(r.json.error, new RegExp(field));
      assert.ok(Array.isArray(r.json.issues) && r.json.issues.length > 0);
      assert.ok(r.json.details);
    });
  }

  test('400 for ranges: analytics start after end or over 90 days, a parameter given twice', async () => {
    const cases: [string, RegExp][] = [
      ['/billing/usage-analytics?startDate=2026-03-02&endDate=2026-03-01', /startDate must not be after endDate/],
      ['/billing/usage-analytics?startDate=2026-01-01&endDate=2026-04-01', /spans 91 days; at most 90/],
      ['/billing/usage-history?page=1&page=2', /page is given more than once/],
    ];
    for (const [path, message] of cases) {
      const r = await call(path, await freshAdmin());
      assert.equal(r.status, 400, r.text);
      assert.equal(r.json.code, 'INVALID_REQUEST');
      assert.match(r.json.error, message);
      assert.equal(typeof r.json.param, 'string');
    }
  });
});
