// Contract tests: the server's real responses validated against JSON Schemas written from the public API reference
// (e2e/contract/schemas, see its README), one test per endpoint, in both wire modes. With LAGOON_WIRE_NAME=venice the
// bodies must match the public schemas exactly. By default the same schemas apply with the service's word in the
// names that carry it; the spec's own additions are allowed there (its `{ beta, data }` envelope on the billing beta
// endpoints, and fields beyond the public ones), but every public field must be present with its public type.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Ajv, type ValidateFunction } from 'ajv';
import { accountKeys } from '../../lib/auth/keys.ts';
import { fliteModel } from '../support/audio-catalogue.ts';
import { createTestDatabase } from '../support/pg.ts';
import { catalogueModel, get, type Harness, post, postBytes, scriptedEmbeddingModel, sseEvents, startHarness } from '../support/harness.ts';
import { evmWallet, signInHeader, walletEnv } from '../wallet/clients.ts';

const SCHEMA_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../contract/schemas');

/** The schemas for one wire word: the public names as written for `venice`, the word substituted otherwise. */
function schemasFor(word: string, ownedBy: string): Ajv {
  const ajv = new Ajv({ allErrors: true, strict: false });
  for (const file of fs.readdirSync(SCHEMA_DIR).filter((f) => f.endsWith('.json'))) {
    let text = fs.readFileSync(path.join(SCHEMA_DIR, file), 'utf8');
    if (word !== 'venice') {
      text = text
        .replaceAll('venice_parameters', `${word}_parameters`)
        .replaceAll('include_venice_system_prompt', `include_${word}_system_prompt`)
        .replaceAll('x-venice-', `x-${word}-`)
        .replaceAll('"const": "venice.ai"', `"const": ${JSON.stringify(ownedBy)}`);
    }
    const schema = JSON.parse(text);
    if (word !== 'venice') allowAdditions(schema);
    // Our own type, listed outside the public shapes only (lib/catalogue/api-routes.ts#listed).
    if (word !== 'venice' && file === 'models-list.json') {
      schema.properties.type.enum.push('background-remove');
      schema.definitions.ModelResponse.properties.type.enum.push('background-remove');
    }
    ajv.addSchema({ ...schema, $id: file }, file);
  }
  return ajv;
}

/** Drops `additionalProperties: false` throughout: the spec's bodies may carry more than the public ones. */
function allowAdditions(node: unknown): void {
  if (!node || typeof node !== 'object') return;
  const o = node as Record<string, unknown>;
  if (o.additionalProperties === false) delete o.additionalProperties;
  for (const v of Object.values(o)) allowAdditions(v);
}

function assertValid(ajv: Ajv, schema: string, body: unknown): void {
  const validate = ajv.getSchema(schema) as ValidateFunction;
  assert.ok(validate, `no schema ${schema}`);
  const valid = validate(body);
  assert.ok(valid, `${schema}: ${ajv.errorsText(validate.errors, { separator: '\n  ' })}\n${JSON.stringify(body).slice(0, 1500)}`);
}

// Loopback fixtures: a SearXNG-format search API and a page to scrape.
let fixtures: http.Server;
let fixturesUrl: string;
const PAGE = `<!doctype html><html><head><title>Lagoon facts</title></head><body><article><h1>Lagoon facts</h1>
<p>A lagoon is a shallow body of water separated from a larger body of water by a narrow landform such as a reef.</p>
<h2>Kinds</h2><ul><li>Coastal lagoons</li><li>Atoll lagoons</li></ul>
<p>Atoll lagoons form inside rings of coral; coastal lagoons form behind barrier islands and sandbars near shores.</p>
</article></body></html>`;

before(async () => {
  fixtures = http.createServer((req, res) => {
    if (req.url?.startsWith('/search')) {
      const results = [{ title: 'Lagoon', url: 'https://example.org/lagoon', content: 'A lagoon is shallow.', publishedDate: '2026-01-02' }];
      return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ results }));
    }
    if (req.url === '/page') return void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE);
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => fixtures.listen(0, '127.0.0.1', r));
  fixturesUrl = `http://127.0.0.1:${(fixtures.address() as AddressInfo).port}`;
});
after(() => fixtures.close());

// Both wire modes on SQLite, and the public one on PostgreSQL too (its numeric columns must come out as numbers).
const WORLDS = [
  { word: 'venice', backend: 'sqlite' },
  { word: 'service', backend: 'sqlite' },
  { word: 'venice', backend: 'postgres' },
] as const;

for (const { word, backend } of WORLDS) {
  describe(`contract: ${word} wire names, ${backend}`, () => {
    let h: Harness;
    let db: { url: string; drop(): Promise<void> } | undefined;
    let ajv: Ajv;
    let key: string;
    let admin: string;
    const p = `x-${word}-`;
    before(async () => {
      db = backend === 'postgres' ? await createTestDatabase() : undefined;
      h = await startHarness({
        databaseUrl: db?.url,
        env: {
          ...walletEnv({}),
          LAGOON_WIRE_NAME: word,
          LAGOON_SEARCH_PROVIDER: 'searxng',
          LAGOON_SEARXNG_URL: fixturesUrl,
          LAGOON_FETCH_ALLOW_HOSTS: '127.0.0.1',
          // Top-ups on Base through a remote facilitator: the 402 requirements need only the receiving wallet.
          LAGOON_X402_BASE_PAY_TO: '0x2670B922ef37C7Df47158725C0CC407b5382293F',
          LAGOON_X402_FACILITATOR_URL: 'http://127.0.0.1:9',
        },
        models: (url) => [
          scriptedEmbeddingModel(url),
          catalogueModel('lagoon-demo-image'),
          catalogueModel('lagoon-demo-edit'),
          catalogueModel('esrgan-slim'),
          catalogueModel('lagoon-demo-background-remove'),
          fliteModel(),
        ],
      });
      ajv = schemasFor(word, h.svc.config.modelsOwnedBy);
      const account = await h.newAccount({ usd: 20 });
      key = account.key;
      admin = (await accountKeys(h.svc.store, account.accountId).create({ type: 'ADMIN', description: 'contract admin' })).secret;
    });
    after(async () => {
      await h.close();
      await db?.drop();
    });

    /** The spec's beta envelope (`{ beta, data }`) outside the public wire names; the public body has none. */
    const unwrapBeta = (body: any) => (word === 'venice' ? body : body.data);

    test('GET /models', async () => {
      const r = await get(h, '/models');
      assert.equal(r.status, 200);
      assertValid(ajv, 'models-list.json', r.json);
      assert.ok(r.json.data.some((m: any) => m.type === 'text') && r.json.data.some((m: any) => m.type === 'embedding'));
    });

    test('GET /models: background-remove, a type the public enum lacks, is listed only when asked for in the public shapes', async () => {
      const ids = (r: { json: any }) => r.json.data.map((m: any) => `${m.id}:${m.type}`);
      const bg = 'lagoon-demo-background-remove:background-remove';
      const all = await get(h, '/models?type=all');
      assertValid(ajv, 'models-list.json', all.json);
      assert.equal(ids(all).includes(bg), word !== 'venice', 'in the full list only outside the public shapes');
      const asked = await get(h, '/models?type=background-remove');
      assert.equal(asked.status, 200, asked.text);
      assert.equal(asked.json.type, 'background-remove');
      assert.deepEqual(ids(asked), [bg], 'asked for by name, it is listed in both modes');
      // Never under a public type it does not serve.
      assert.ok(!ids(await get(h, '/models?type=upscale')).includes(bg));
      assert.ok(!ids(await get(h, '/models?type=image')).includes(bg));
    });

    test('GET /models: image, inpaint and upscale models in the public shapes: no capabilities record, documented constraints only', async () => {
      if (word !== 'venice') return;
      const r = await get(h, '/models?type=all');
      const image = ['promptCharacterLimit', 'steps', 'widthHeightDivisor', 'aspectRatios', 'defaultAspectRatio', 'resolutions', 'defaultResolution'];
      const inpaint = ['aspectRatios', 'promptCharacterLimit', 'combineImages', 'maxInputImages', 'resolutions', 'defaultResolution'];
      const family = r.json.data.filter((m: any) => ['image', 'inpaint', 'upscale'].includes(m.type));
      assert.deepEqual(family.map((m: any) => m.type).sort(), ['image', 'inpaint', 'upscale']);
      for (const m of family) {
        assert.equal(m.model_spec.capabilities, undefined, `${m.id}: capabilities is the text models' record`);
        assert.equal(m.model_spec.supportsStyleReferences, false);
        const keys = Object.keys(m.model_spec.constraints);
        const allowed = m.type === 'inpaint' ? inpaint : image;
        for (const k of keys)
          assert.ok(allowed.includes(k), `${m.id}: constraints.${k} is not in the documented ${m.type === 'inpaint' ? 'Inpaint' : 'Image'} shape`);
      }
    });

    test('GET /models/traits', async () => {
      const r = await get(h, '/models/traits');
      assert.equal(r.status, 200);
      assertValid(ajv, 'models-traits.json', r.json);
    });

    test('GET /models/compatibility_mapping', async () => {
      const r = await get(h, '/models/compatibility_mapping');
      assert.equal(r.status, 200);
      assertValid(ajv, 'models-compatibility-mapping.json', r.json);
      assert.equal(r.json.data['gpt-4o'], 'scripted-model');
    });

    test('POST /chat/completions', async () => {
      const r = await post(h, '/chat/completions', key, { model: 'scripted-model', messages: [{ role: 'user', content: 'Hello' }] });
      assert.equal(r.status, 200, r.text);
      assertValid(ajv, 'chat-completion.json', r.json);
    });

    test('POST /chat/completions, streamed: every chunk, the usage chunk included', async () => {
      const r = await post(h, '/chat/completions', key, { model: 'scripted-model', messages: [{ role: 'user', content: 'Hello' }], stream: true });
      assert.equal(r.status, 200, r.text);
      const events = sseEvents(r.text);
      assert.equal(events.at(-1), '[DONE]');
      const chunks = events.slice(0, -1);
      for (const chunk of chunks) assertValid(ajv, 'chat-completion-chunk.json', chunk);
      assert.ok(
        chunks.some((c) => c.choices.length === 0 && c.usage),
        'a usage chunk',
      );
      assert.ok(
        chunks.some((c) => c.choices[0]?.delta?.content),
        'a content chunk',
      );
    });

    test('POST /embeddings', async () => {
      const r = await post(h, '/embeddings', key, { model: 'embed-model', input: ['a lagoon', 'a reef'] });
      assert.equal(r.status, 200, r.text);
      assertValid(ajv, 'embeddings.json', r.json);
    });

    test('POST /responses', async () => {
      const r = await post(h, '/responses', key, { model: 'scripted-model', input: 'Hello' });
      assert.equal(r.status, 200, r.text);
      assertValid(ajv, 'responses.json', r.json);
    });

    test('POST /image/generate', async () => {
      const r = await post(h, '/image/generate', key, { model: 'lagoon-demo-image', prompt: 'a blue lagoon', width: 256, height: 256 });
      assert.equal(r.status, 200, r.text);
      assertValid(ajv, 'image-generate.json', r.json);
    });

    test('POST /audio/speech: binary audio with the documented headers', async () => {
      const r = await postBytes(h, '/audio/speech', key, JSON.stringify({ model: 'tts-flite', input: 'Hello lagoon', response_format: 'wav' }), {
        'content-type': 'application/json',
      });
      assert.equal(r.status, 200, r.bytes.toString('utf8').slice(0, 300));
      assert.ok(r.bytes.length > 44);
      assertValid(ajv, 'audio-speech-headers.json', Object.fromEntries(r.headers));
      assert.equal(r.headers.get(`${p}model-id`), 'tts-flite');
    });

    test('GET /characters and GET /characters/{slug}', async () => {
      const list = await get(h, '/characters', key);
      assert.equal(list.status, 200, list.text);
      assertValid(ajv, 'characters-list.json', list.json);
      assert.ok(list.json.data.length > 0, 'the seeded characters');
      const one = await get(h, `/characters/${list.json.data[0].slug}`, key);
      assert.equal(one.status, 200, one.text);
      assertValid(ajv, 'character.json', one.json);
    });

    test('GET /billing/balance', async () => {
      const r = await get(h, '/billing/balance', admin);
      assert.equal(r.status, 200, r.text);
      assertValid(ajv, 'billing-balance.json', unwrapBeta(r.json));
    });

    test('GET /billing/usage-history (cursor form)', async () => {
      // A billed request first, so the page has a row.
      assert.equal((await post(h, '/chat/completions', key, { model: 'scripted-model', messages: [{ role: 'user', content: 'Bill me' }] })).status, 200);
      await h.svc.ledger.drain();
      const r = await get(h, '/billing/usage-history?pageSize=10', admin);
      assert.equal(r.status, 200, r.text);
      assertValid(ajv, 'billing-usage-history.json', r.json);
      assert.ok(r.json.data.length > 0);
    });

    test('GET /billing/usage-analytics', async () => {
      await h.svc.ledger.drain();
      const r = await get(h, '/billing/usage-analytics?lookback=7d', admin);
      assert.equal(r.status, 200, r.text);
      assertValid(ajv, 'billing-usage-analytics.json', unwrapBeta(r.json));
    });

    test('GET /api_keys, GET /api_keys/{id} and POST /api_keys', async () => {
      const list = await get(h, '/api_keys', admin);
      assert.equal(list.status, 200, list.text);
      assertValid(ajv, 'api-keys-list.json', list.json);
      const one = await get(h, `/api_keys/${list.json.data[0].id}`, admin);
      assert.equal(one.status, 200, one.text);
      assertValid(ajv, 'api-key-get.json', one.json);
      const created = await post(h, '/api_keys', admin, { apiKeyType: 'INFERENCE', description: 'contract key', modelPrivacy: 'PRIVATE_TEXT' });
      assert.equal(created.status, 200, created.text);
      assertValid(ajv, 'api-key-create.json', created.json);
      assert.equal(created.json.data.modelPrivacy, 'PRIVATE_TEXT');
      // PATCH answers the updated key; the public document's has no usage (the spec's keeps it).
      const patched = await fetch(`${h.base}/api_keys`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
        body: JSON.stringify({ id: created.json.data.id, description: 'renamed' }),
      });
      const pj = await patched.json();
      assert.equal(patched.status, 200, JSON.stringify(pj));
      assert.deepEqual([pj.success, pj.data.description], [true, 'renamed']);
      assert.equal('usage' in pj.data, word !== 'venice');
    });

    test('GET /api_keys/rate_limits', async () => {
      const r = await get(h, '/api_keys/rate_limits', key);
      assert.equal(r.status, 200, r.text);
      assertValid(ajv, 'api-keys-rate-limits.json', r.json);
    });

    test('GET /x402/balance/{walletAddress} with the wallet signed in', async () => {
      const wallet = evmWallet();
      const r = await get(h, `/x402/balance/${wallet.address}`, undefined, { 'SIGN-IN-WITH-X': await signInHeader(h, wallet) });
      assert.equal(r.status, 200, r.text);
      assertValid(ajv, 'x402-balance.json', r.json);
    });

    test('POST /x402/top-up without payment: the 402 requirements, in the body and PAYMENT-REQUIRED', async () => {
      const r = await post(h, '/x402/top-up', undefined, '');
      assert.equal(r.status, 402, r.text);
      assertValid(ajv, 'x402-top-up-requirements.json', r.json);
      const header = r.headers.get('payment-required');
      assert.ok(header, 'PAYMENT-REQUIRED');
      assertValid(ajv, 'x402-top-up-requirements.json', JSON.parse(Buffer.from(header, 'base64').toString('utf8')));
      // The public document's layouts: the unpaid 402 is the x402 body alone; a refusal is {error: <code>, message}.
      const bad = await post(h, '/x402/top-up?amount=abc', undefined, '');
      assert.equal(bad.status, 400, bad.text);
      if (word === 'venice') {
        assert.deepEqual(Object.keys(r.json).sort(), ['accepts', 'x402Version']);
        assert.deepEqual([Object.keys(bad.json).sort(), bad.json.error], [['error', 'message'], 'INVALID_AMOUNT']);
      } else assert.equal(bad.json.code, 'INVALID_AMOUNT');
    });

    test('GET /crypto/rpc/networks', async () => {
      const r = await get(h, '/crypto/rpc/networks');
      assert.equal(r.status, 200, r.text);
      assertValid(ajv, 'crypto-rpc-networks.json', r.json);
      assert.deepEqual(r.json.networks, [...r.json.networks].sort());
    });

    test('POST /augment/search', async () => {
      const r = await post(h, '/augment/search', key, { query: 'lagoon', limit: 3 });
      assert.equal(r.status, 200, r.text);
      assertValid(ajv, 'augment-search.json', r.json);
      assert.equal(r.json.results.length, 1);
    });

    test('POST /augment/scrape', async () => {
      const r = await post(h, '/augment/scrape', key, { url: `${fixturesUrl}/page` });
      assert.equal(r.status, 200, r.text);
      assertValid(ajv, 'augment-scrape.json', r.json);
      assert.match(r.json.content, /^## Kinds$/m);
    });
  });
}
