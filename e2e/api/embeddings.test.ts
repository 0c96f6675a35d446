// POST /api/v1/embeddings end to end: a real server over the scripted engine's /v1/embeddings (hash-seeded unit
// vectors, usage = words), with keys, a signed-in wallet, billing rows, rate limits, and the official openai client.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { grantUsd } from '../../lib/billing/ledger.ts';
import { fromBase64 } from '../../lib/engines/text/vectors.ts';
import { ensureWallet } from '../../lib/wallet/wallets.ts';
import { hashVector } from '../support/scripted-engine.ts';
import { get, type Harness, post, startHarness } from '../support/harness.ts';
import { evmWallet, signInHeader, walletEnv } from '../wallet/clients.ts';

const RPM = 6;
let h: Harness;
before(async () => {
  h = await startHarness({
    env: walletEnv({}),
    limits: { windowSeconds: 60, embedding: { default: { rpm: RPM } } },
    models: (url) => [
      {
        id: 'embed-model',
        name: 'Scripted embeddings',
        type: 'embedding',
        tier: 'XS',
        // 100 USD per 1M tokens: 100 micro-USD a token, so every charge is visible in the balance.
        pricing: { input_usd: 100, output_usd: 0, input_diem: 100, output_diem: 0 },
        context_length: 512,
        embedding: { dimensions: 16, max_input_tokens: 512, custom_dimensions: true },
        traits: ['default'],
        engine: { kind: 'openai', baseUrl: url, model: 'scripted-embed', timeoutMs: 2000, totalTimeoutMs: 4000 },
      },
      {
        id: 'fixed-embed',
        name: 'Fixed-size embeddings',
        type: 'embedding',
        tier: 'XS',
        pricing: { input_usd: 1, output_usd: 0, input_diem: 1, output_diem: 0 },
        context_length: 512,
        embedding: { dimensions: 16 },
        engine: { kind: 'openai', baseUrl: url, model: 'scripted-embed' },
      },
    ],
  });
});
after(() => h?.close());

const norm = (v: number[]) => Math.hypot(...v);
const close = (a: number[], b: number[], eps = 1e-6) => a.length === b.length && a.every((x, i) => Math.abs(x - b[i]) < eps);
const usageRows = async (accountId: string) => {
  await h.svc.ledger.drain();
  return h.svc.store.all<any>('SELECT * FROM usage WHERE account_id = $1 ORDER BY created_at, request_id', [accountId]);
};

describe('POST /embeddings', () => {
  test('answers the OpenAI list shape with one unit vector per input, in order, and bills the engine usage', async () => {
    const { key, accountId } = await h.newAccount({ usd: 10 });
    const input = ['the quick brown fox', 'jumps over', 'the quick brown fox'];
    const r = await post(h, '/embeddings', key, { model: 'embed-model', input });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.object, 'list');
    assert.equal(r.json.model, 'embed-model');
    assert.deepEqual(
      r.json.data.map((d: any) => [d.object, d.index]),
      [
        ['embedding', 0],
        ['embedding', 1],
        ['embedding', 2],
      ],
    );
    for (const [i, d] of r.json.data.entries()) {
      assert.equal(d.embedding.length, 16);
      assert.ok(Math.abs(norm(d.embedding) - 1) < 1e-9);
      assert.ok(close(d.embedding, hashVector(input[i], 16)), 'the upstream vector passes through');
    }
    assert.deepEqual(r.json.data[0].embedding, r.json.data[2].embedding, 'same text, same vector');
    assert.ok(!close(r.json.data[0].embedding, r.json.data[1].embedding));
    assert.deepEqual(r.json.usage, { prompt_tokens: 10, total_tokens: 10 });
    assert.equal(r.headers.get('x-service-model-id') ?? r.headers.get('x-venice-model-id'), 'embed-model');
    assert.equal(r.headers.get('x-ratelimit-limit-requests'), String(RPM));
    assert.equal(r.headers.get('x-ratelimit-remaining-requests'), String(RPM - 1));
    // The upstream got one batched request with the upstream's model name, asking for floats.
    const sent = h.engine.embeddingRequests.at(-1)!.body;
    assert.deepEqual([sent.model, sent.input, sent.encoding_format], ['scripted-embed', input, 'float']);

    const rows = await usageRows(accountId);
    assert.equal(rows.length, 1);
    assert.deepEqual(
      [rows[0].endpoint, rows[0].model_id, Number(rows[0].prompt_tokens), Number(rows[0].completion_tokens), rows[0].unit, Number(rows[0].quantity)],
      ['/embeddings', 'embed-model', 10, 0, 'token', 10],
    );
    assert.equal(Number(rows[0].usd), 1000, '10 tokens at 100 USD per 1M tokens');
    assert.equal(rows[0].request_id, r.headers.get('cf-ray'));
    const balance = await h.svc.ledger.balances(accountId);
    assert.equal(balance.usd, 10_000_000 - 1000);
    assert.equal(balance.usdHeld, 0);
  });

  test('a single string is one input; base64 is little-endian float32; dimensions shorten and re-normalise', async () => {
    const { key } = await h.newAccount();
    const one = await post(h, '/embeddings', key, { model: 'embed-model', input: 'hello there', encoding_format: 'base64', user: 'ignored' });
    assert.equal(one.status, 200, one.text);
    assert.equal(one.json.data.length, 1);
    assert.equal(typeof one.json.data[0].embedding, 'string');
    assert.ok(close(fromBase64(one.json.data[0].embedding), hashVector('hello there', 16)));

    const short = await post(h, '/embeddings', key, { model: 'embed-model', input: ['hello there'], dimensions: 4 });
    assert.equal(short.status, 200, short.text);
    const v = short.json.data[0].embedding;
    assert.equal(v.length, 4);
    assert.ok(Math.abs(norm(v) - 1) < 1e-9);
    assert.equal(h.engine.embeddingRequests.at(-1)!.body.dimensions, 4, 'dimensions reach the upstream');
  });

  test('the default embedding model by trait, and gzip when accepted', async () => {
    const { key } = await h.newAccount();
    const res = await fetch(`${h.base}/embeddings`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, 'accept-encoding': 'gzip' },
      body: JSON.stringify({ model: 'default', input: Array.from({ length: 20 }, (_, i) => `text number ${i}`) }),
    });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-encoding'), 'gzip');
    const body = await res.json(); // fetch gunzips it
    assert.equal(body.model, 'embed-model');
    assert.equal(body.data.length, 20);
  });

  test('400s name the field: token ids, empty strings, bad items, unknown fields, dimensions, a text model', async () => {
    const { key, accountId } = await h.newAccount();
    const cases: [unknown, string, RegExp][] = [
      [{ model: 'embed-model', input: [1, 2, 3] }, 'INVALID_REQUEST', /token-id arrays are not supported/],
      [{ model: 'embed-model', input: [[1, 2], [3]] }, 'INVALID_REQUEST', /token-id arrays are not supported/],
      [{ model: 'embed-model', input: '' }, 'INVALID_REQUEST', /input: input must not be an empty string/],
      [{ model: 'embed-model', input: ['ok', ''] }, 'INVALID_REQUEST', /input\.1: input item 1 must not be an empty string/],
      [{ model: 'embed-model', input: ['ok', 7] }, 'INVALID_REQUEST', /item 1 is number/],
      [{ model: 'embed-model', input: [] }, 'INVALID_REQUEST', /at least one string/],
      [{ model: 'embed-model', input: Array(2049).fill('x') }, 'INVALID_REQUEST', /at most 2048/],
      [{ model: 'embed-model' }, 'INVALID_REQUEST', /input is required/],
      [{ model: 'embed-model', input: 'x', encoding_format: 'int8' }, 'INVALID_REQUEST', /encoding_format/],
      [{ model: 'embed-model', input: 'x', extra: true }, 'INVALID_REQUEST', /Unrecognized key\(s\): extra/],
      [{ model: 'embed-model', input: 'x', dimensions: 0 }, 'INVALID_REQUEST', /dimensions/],
      [{ model: 'embed-model', input: 'x', dimensions: 17 }, 'INVALID_REQUEST', /at most 16/],
      [{ model: 'fixed-embed', input: 'x', dimensions: 8 }, 'INVALID_REQUEST', /does not support custom dimensions/],
      [{ model: 'scripted-model', input: 'x' }, 'INVALID_MODEL', /not an embedding model/],
    ];
    for (const [body, code, message] of cases) {
      const r = await post(h, '/embeddings', key, body);
      assert.equal(r.status, 400, `${JSON.stringify(body).slice(0, 80)} → ${r.text}`);
      assert.equal(r.json.code, code);
      assert.match(r.json.error, message);
    }
    const missing = await post(h, '/embeddings', key, { model: 'no-such-model', input: 'x' });
    assert.deepEqual([missing.status, missing.json.code], [404, 'MODEL_NOT_FOUND']);
    assert.match(missing.json.error, /Available embedding models: embed-model, fixed-embed/);
    assert.equal((await usageRows(accountId)).length, 0, 'nothing billed');
  });

  test('engine failures release the hold: context length is a 400 on input, an upstream 503 a 503', async () => {
    const { key, accountId } = await h.newAccount({ usd: 1 });
    const ctx = await post(h, '/embeddings', key, { model: 'embed-model', input: ['fine', 'too long [[context]]'] });
    assert.deepEqual([ctx.status, ctx.json.code, ctx.json.param], [400, 'CONTEXT_LENGTH_EXCEEDED', 'input']);
    const busy = await post(h, '/embeddings', key, { model: 'embed-model', input: '[[status:503]]' });
    assert.deepEqual([busy.status, busy.json.code], [503, 'MODEL_AT_CAPACITY']);
    assert.equal((await usageRows(accountId)).length, 0);
    const b = await h.svc.ledger.balances(accountId);
    assert.deepEqual([b.usd, b.usdHeld], [1_000_000, 0]);
  });

  test('401 for a bad key, the x402 discovery 402 without one, 402 without credit', async () => {
    assert.equal((await post(h, '/embeddings', 'lgn_inf_unknown', { model: 'embed-model', input: 'x' })).status, 401);
    const anon = await post(h, '/embeddings', undefined, { model: 'embed-model', input: 'x' });
    assert.deepEqual([anon.status, anon.json.code], [402, 'AUTHENTICATION_REQUIRED']);
    assert.match(anon.json.resource.url, /\/api\/v1\/embeddings$/);
    const { key } = await h.newAccount({ usd: 0 });
    const broke = await post(h, '/embeddings', key, { model: 'embed-model', input: 'x' });
    assert.deepEqual([broke.status, broke.json.code], [402, 'INSUFFICIENT_BALANCE']);
  });

  test(`the Embedding rate limit: ${RPM} requests a window per key, then 429 with the headers`, async () => {
    const { key } = await h.newAccount();
    for (let i = 0; i < RPM; i++) {
      const r = await post(h, '/embeddings', key, { model: 'embed-model', input: 'x' });
      assert.equal(r.status, 200);
      assert.equal(r.headers.get('x-ratelimit-remaining-requests'), String(RPM - 1 - i));
    }
    const over = await post(h, '/embeddings', key, { model: 'embed-model', input: 'x' });
    assert.deepEqual([over.status, over.json.code], [429, 'RATE_LIMIT_EXCEEDED']);
    assert.equal(over.headers.get('x-ratelimit-limit-requests'), String(RPM));
    assert.equal(over.headers.get('x-ratelimit-remaining-requests'), '0');
    assert.ok(Number(over.headers.get('retry-after') ?? over.headers.get('x-ratelimit-reset-requests')) > 0);
  });

  test('a wallet signed in with SIGN-IN-WITH-X embeds on its credit, with X-Balance-Remaining; without credit, the wallet 402', async () => {
    const account = evmWallet();
    const w = await ensureWallet(h.svc.store, 'eip155', account.address);
    const res = (header: string) =>
      fetch(`${h.base}/embeddings`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'SIGN-IN-WITH-X': header },
        body: JSON.stringify({ model: 'embed-model', input: 'one two three four' }),
      });
    const poor = await res(await signInHeader(h, account));
    assert.equal(poor.status, 402);
    assert.equal((await poor.json()).code, 'PAYMENT_REQUIRED');

    await grantUsd(h.svc.store, w.accountId, 2_000_000);
    const paid = await res(await signInHeader(h, account));
    assert.equal(paid.status, 200, await paid.clone().text());
    const body = await paid.json();
    assert.equal(body.usage.prompt_tokens, 4);
    assert.equal(paid.headers.get('x-balance-remaining'), (2 - 4 * 100e-6).toFixed(6));
    const rows = await usageRows(w.accountId);
    assert.deepEqual(
      rows.map((r) => [r.endpoint, Number(r.usd)]),
      [['/embeddings', 400]],
    );
  });

  test('GET /models?type=embedding lists the embedding models with their dimensions', async () => {
    const r = await get(h, '/models?type=embedding');
    assert.equal(r.status, 200);
    assert.deepEqual(
      r.json.data.map((m: any) => m.id),
      ['embed-model', 'fixed-embed'],
    );
    const spec = r.json.data[0].model_spec;
    assert.deepEqual([spec.embeddingDimensions, spec.maxInputTokens, spec.supportsCustomDimensions], [16, 512, true]);
    assert.equal(r.json.data[1].model_spec.supportsCustomDimensions, false);
    assert.equal(r.json.data[0].context_length, undefined);
  });
});

describe('the official openai client, unmodified', () => {
  let client: OpenAI;
  // What went over the wire, to show which encoding the client asked for and got (the client hides both).
  const wire: { sent: any; received: any }[] = [];
  before(async () => {
    const { key } = await h.newAccount();
    const recording: typeof fetch = async (url, init) => {
      const res = await fetch(url, init);
      wire.push({ sent: JSON.parse(String(init?.body)), received: await res.clone().json() });
      return res;
    };
    client = new OpenAI({ apiKey: key, baseURL: h.base, maxRetries: 0, fetch: recording });
  });

  test('embeddings.create with its default encoding (base64, decoded by the client)', async () => {
    const r = await client.embeddings.create({ model: 'embed-model', input: ['alpha beta', 'gamma'] });
    assert.equal(wire.at(-1)!.sent.encoding_format, 'base64');
    assert.equal(typeof wire.at(-1)!.received.data[0].embedding, 'string');
    assert.equal(r.data.length, 2);
    assert.ok(Array.isArray(r.data[0].embedding), 'the client decoded base64 into numbers');
    assert.ok(close(r.data[0].embedding, hashVector('alpha beta', 16)));
    assert.ok(close(r.data[1].embedding, hashVector('gamma', 16)));
    assert.deepEqual(r.usage, { prompt_tokens: 3, total_tokens: 3 });
  });

  test('embeddings.create with encoding_format float and dimensions', async () => {
    const r = await client.embeddings.create({ model: 'embed-model', input: 'alpha beta', encoding_format: 'float', dimensions: 8 });
    assert.equal(wire.at(-1)!.sent.encoding_format, 'float');
    assert.equal(r.data[0].embedding.length, 8);
    assert.ok(Math.abs(norm(r.data[0].embedding) - 1) < 1e-9);
  });

  test('a token-id input is refused as a 400 the client raises', async () => {
    await assert.rejects(client.embeddings.create({ model: 'embed-model', input: [1, 2, 3] }), (e: any) => e.status === 400 && /token-id/.test(e.message));
  });
});
