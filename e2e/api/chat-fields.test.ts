// Chat completions accept every field the public API documents: text, include, metadata, store, search tools
// (mapped to the service parameters), enable_e2ee on models without E2EE, the tool shapes clients send, n and
// top_logprobs up to their documented bounds; undocumented fields pass unvalidated. And the default catalogue's
// traits name models that can do what they promise.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { loadCatalogue } from '../../lib/models/catalogue.ts';
import { type Harness, post, scriptedModel, startHarness } from '../support/harness.ts';

const user = (content: string) => [{ role: 'user', content }];

describe('chat fields', () => {
  let h: Harness;
  let key: string;
  let searx: http.Server;
  let searches = 0;
  before(async () => {
    // A SearXNG-format search server on loopback.
    searx = http.createServer((_req, res) => {
      searches++;
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ results: [{ title: 'Lagoon news', url: 'https://example.org/news', content: 'The lagoon opened a new pier today.' }] }));
    });
    await new Promise<void>((r) => searx.listen(0, '127.0.0.1', r));
    h = await startHarness({
      env: { LAGOON_SEARCH_PROVIDER: 'searxng', LAGOON_SEARXNG_URL: `http://127.0.0.1:${(searx.address() as AddressInfo).port}` },
      models: (url) => [scriptedModel('grok-like', url, { capabilities: { function_calling: true, x_search: true } })],
    });
    ({ key } = await h.newAccount({ usd: 50 }));
  });
  after(async () => {
    await h.close();
    searx.close();
  });

  const chat = (body: Record<string, unknown>, headers?: Record<string, string>) =>
    post(h, '/chat/completions', key, { model: 'scripted-model', messages: user('hi'), ...body }, headers);
  const lastUpstream = () => h.engine.requests.at(-1)!.body;

  test('text, include, metadata and store are accepted and not forwarded', async () => {
    const r = await chat({ text: { verbosity: 'low' }, include: ['reasoning.encrypted_content'], metadata: { a: 'b' }, store: true, verbosity: 'high' });
    assert.equal(r.status, 200, r.text);
    const up = lastUpstream();
    for (const k of ['text', 'include', 'metadata', 'store', 'verbosity']) assert.equal(k in up, false, k);
    // Documented fields are still validated.
    assert.equal((await chat({ text: { verbosity: 'shouting' } })).status, 400);
    assert.equal((await chat({ include: 'everything' })).status, 400);
  });

  test('undocumented top-level fields pass unvalidated and are not forwarded; the other wire word’s parameters stay a 400', async () => {
    const r = await chat({ turbo: true, anon_user_id: 'u-1', reasoning_mode: { deep: 1 }, ['__proto__']: { polluted: true } });
    assert.equal(r.status, 200, r.text);
    assert.equal('turbo' in lastUpstream(), false);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    const venice = await startHarness({ env: { LAGOON_WIRE_NAME: 'venice' } });
    try {
      const { key: k } = await venice.newAccount();
      const wrong = await post(venice, '/chat/completions', k, { model: 'scripted-model', messages: user('x'), service_parameters: {} });
      assert.equal(wrong.status, 400);
      assert.deepEqual(wrong.json.issues[0].keys, ['service_parameters']);
      const right = await post(venice, '/chat/completions', k, { model: 'scripted-model', messages: user('x'), venice_parameters: { enable_e2ee: true } });
      assert.equal(right.status, 200);
      assert.equal(right.json.venice_parameters.enable_e2ee, false);
    } finally {
      await venice.close();
    }
  });

  test('a web_search tool lets the model search (auto); explicit service parameters win; it is not sent as a function', async () => {
    const before = searches;
    const r = await chat({ messages: user('What is the latest news about the lagoon today?'), tools: [{ type: 'web_search' }] });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.service_parameters.enable_web_search, 'auto');
    assert.equal(searches, before + 1);
    assert.equal(r.json.service_parameters.web_search_citations[0].url, 'https://example.org/news');
    assert.equal(lastUpstream().tools, undefined);
    assert.match(lastUpstream().messages[0].content, /Lagoon news/);
    const off = await chat({
      messages: user('What is the latest news about the lagoon today?'),
      tools: [{ type: 'web_search' }],
      service_parameters: { enable_web_search: 'off' },
    });
    assert.equal(off.json.service_parameters.enable_web_search, 'off');
    assert.equal(searches, before + 1);
    // A small-talk message: auto decides not to search.
    assert.equal((await chat({ tools: [{ type: 'web_search' }] })).json.service_parameters.enable_web_search, 'auto');
    assert.equal(searches, before + 1);
    // With function tools beside it, only the functions reach the model (and need function calling).
    const fn = { type: 'function', function: { name: 'lookup', parameters: { type: 'object' } } };
    const both = await chat({ tools: [{ type: 'web_search' }, fn] });
    assert.deepEqual(
      lastUpstream().tools.map((t: any) => t.function.name),
      ['lookup'],
    );
    assert.equal(both.status, 200);
    const plain = await chat({ model: 'plain-model', tools: [{ type: 'web_search' }], tool_choice: 'auto' });
    assert.equal(plain.status, 200, 'a search tool needs no function calling');
    assert.equal(lastUpstream().tool_choice, undefined);
  });

  test('an x_search tool asks for X search: native search upstream on a model that has it, a 400 on one that does not', async () => {
    const r = await chat({ model: 'grok-like', tools: [{ type: 'x_search' }] });
    assert.equal(r.status, 200, r.text);
    assert.ok(lastUpstream().search_parameters);
    const refused = await chat({ tools: [{ type: 'x_search' }] });
    assert.equal(refused.status, 400);
    assert.match(refused.json.error, /X search/);
  });

  test('enable_e2ee: true on a model without E2EE is ignored (echo false) unless E2EE headers are sent', async () => {
    const r = await chat({ service_parameters: { enable_e2ee: true } });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.service_parameters.enable_e2ee, false);
    const withHeaders = await chat(
      { service_parameters: { enable_e2ee: true } },
      { 'x-service-tee-client-pub-key': '04ab', 'x-service-tee-signing-algo': 'ecdsa' },
    );
    assert.equal(withHeaders.status, 400);
    assert.equal(withHeaders.json.code, 'UNSUPPORTED_CONTENT');
    assert.match(withHeaders.json.error, /end-to-end encryption/);
    // enable_e2ee: false with the headers asks for nothing.
    assert.equal((await chat({ service_parameters: { enable_e2ee: false } }, { 'x-service-tee-client-pub-key': '04ab' })).status, 200);
  });

  test('tool shapes: flat and Anthropic-style function tools are nested; {type: "auto"} tool_choice becomes "auto"', async () => {
    const r = await chat({
      tools: [
        { type: 'function', name: 'flat_fn', description: 'Flat', parameters: { type: 'object', properties: {} } },
        { name: 'anthropic_fn', description: 'Anthropic', input_schema: { type: 'object', properties: { q: { type: 'string' } } } },
      ],
      tool_choice: { type: 'auto' },
    });
    assert.equal(r.status, 200, r.text);
    const up = lastUpstream();
    assert.deepEqual(up.tools, [
      { type: 'function', function: { name: 'flat_fn', description: 'Flat', parameters: { type: 'object', properties: {} } } },
      { type: 'function', function: { name: 'anthropic_fn', description: 'Anthropic', parameters: { type: 'object', properties: { q: { type: 'string' } } } } },
    ]);
    assert.equal(up.tool_choice, 'auto');
    const named = await chat({ tools: [{ type: 'function', name: 'flat_fn' }], tool_choice: { type: 'function', name: 'flat_fn' } });
    assert.equal(named.status, 200, named.text);
    assert.deepEqual(lastUpstream().tool_choice, { type: 'function', function: { name: 'flat_fn' } });
    const badName = await chat({ tools: [{ type: 'function', name: 'no spaces allowed' }] });
    assert.equal(badName.status, 400);
    assert.match(badName.json.error, /Function names/);
  });

  test('n up to 128 and top_logprobs beyond 20 are accepted (the engine returns what it can); beyond the bounds is a 400', async () => {
    const r = await chat({ messages: user('[[tokens:1]]'), n: 24, max_tokens: 4 });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.choices.length, 24);
    assert.equal((await chat({ n: 129 })).status, 400);
    assert.equal((await chat({ n: 0 })).status, 400);
    const lp = await chat({ messages: user('[[tokens:2]]'), logprobs: true, top_logprobs: 25 });
    assert.equal(lp.status, 200, lp.text);
    assert.equal(lastUpstream().top_logprobs, 25);
    assert.equal((await chat({ logprobs: true, top_logprobs: -1 })).status, 400);
  });
});

test('the default catalogue: every capability trait names a model with that capability', () => {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
  const cat = loadCatalogue(path.join(root, 'lib/models/default-catalogue.json'), (name) => (name === 'LAGOON_DATA_DIR' ? '/tmp/lagoon-unused' : undefined));
  const needs: Record<string, keyof (typeof cat.models)[number]['capabilities']> = {
    function_calling_default: 'function_calling',
    default_vision: 'vision',
    default_reasoning: 'reasoning',
  };
  for (const m of cat.models) {
    for (const t of m.traits) {
      const capability = needs[t];
      if (capability) assert.ok(m.capabilities[capability], `${m.id} carries ${t} but lacks ${capability}`);
    }
  }
});
