// Web search, scraping and citations in chat completions, and the /augment endpoints, against loopback fixtures:
// a SearXNG-format search server and pages to scrape.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { grantUsd } from '../../lib/billing/ledger.ts';
import { ensureWallet } from '../../lib/wallet/wallets.ts';
import { type Harness, get, post, scriptedModel, sseEvents, startHarness } from '../support/harness.ts';
import { evmWallet, signInHeader, walletEnv } from '../wallet/clients.ts';

const RESULTS = [
  {
    title: 'Lagoons of the Pacific',
    url: 'https://example.org/lagoons',
    content: 'A lagoon is a shallow body of water separated from the sea.',
    publishedDate: '2026-11-01',
  },
  { title: 'Coral reef atlas', url: 'https://example.org/reefs', content: 'Reefs often enclose lagoons.' },
  { title: 'Tides explained', url: 'https://example.org/tides', content: 'Tides move water in and out of lagoons.' },
];

let searx: http.Server;
let searxUrl: string;
let searchHits = 0;
let failSearch = false;
let pages: http.Server;
let pagesUrl: string;
let brave: http.Server;
let braveUrl: string;

const ARTICLE = `<!doctype html><html><head><title>The Quiet Lagoon</title></head><body>
<nav><a href="/">Home</a> <a href="/shop">Shop</a> NAVIGATION-NOISE</nav>
<article><h1>The Quiet Lagoon</h1>
<p>The quiet lagoon is fed by three rivers and protected by a long sand barrier, which keeps its water calm all year.</p>
<p>Fishermen have worked its shallows for centuries, and migrating birds rest on its islands every spring and autumn.</p>
<p>Scientists measure its salinity weekly, because the balance of fresh and sea water decides which species thrive there.</p>
</article><footer>FOOTER-NOISE copyright</footer></body></html>`;

before(async () => {
  searx = http.createServer((req, res) => {
    searchHits++;
    const q = new URL(req.url!, 'http://x').searchParams;
    if (failSearch) return void res.writeHead(500).end('down');
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ query: q.get('q'), results: RESULTS }));
  });
  await new Promise<void>((r) => searx.listen(0, '127.0.0.1', r));
  searxUrl = `http://127.0.0.1:${(searx.address() as AddressInfo).port}`;
  pages = http.createServer((req, res) => {
    if (req.url === '/article') return void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(ARTICLE);
    if (req.url === '/notes.txt') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('Plain notes about tides.');
    res.writeHead(404).end('missing');
  });
  await new Promise<void>((r) => pages.listen(0, '127.0.0.1', r));
  pagesUrl = `http://127.0.0.1:${(pages.address() as AddressInfo).port}`;
  // A Brave-format search API: one result, so a test can tell which provider answered.
  brave = http.createServer((req, res) => {
    if (req.headers['x-subscription-token'] !== 'brave-key') return void res.writeHead(401).end();
    const result = { title: 'Brave lagoon result', url: 'https://example.org/brave', description: 'Found by Brave.' };
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ web: { results: [result] } }));
  });
  await new Promise<void>((r) => brave.listen(0, '127.0.0.1', r));
  braveUrl = `http://127.0.0.1:${(brave.address() as AddressInfo).port}`;
});
after(() => {
  searx.close();
  pages.close();
  brave.close();
});

describe('with a search provider', () => {
  let h: Harness;
  let key: string;
  let accountId: string;
  before(async () => {
    h = await startHarness({
      env: { ...walletEnv({}), LAGOON_SEARCH_PROVIDER: 'searxng', LAGOON_SEARXNG_URL: searxUrl, LAGOON_FETCH_ALLOW_HOSTS: '127.0.0.1' },
      models: (url) => [scriptedModel('grok-like', url, { capabilities: { x_search: true, web_search: true } })],
    });
    ({ key, accountId } = await h.newAccount({ usd: 5 }));
  });
  after(() => h.close());

  const chat = (content: string, params: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    post(h, '/chat/completions', key, { model: 'scripted-model', messages: [{ role: 'user', content }], service_parameters: params, ...extra });
  const lastUsage = async () => (
    await h.svc.ledger.drain(), h.svc.store.get<any>('SELECT * FROM usage WHERE account_id = $1 ORDER BY created_at DESC, request_id DESC', [accountId])
  );

  test('/models reports web search on models that support it', async () => {
    const m = (await get(h, '/models')).json.data.find((x: any) => x.id === 'grok-like');
    assert.equal(m.model_spec.capabilities.supportsWebSearch, true);
  });

  test('"on": results enter the context as numbered sources, come back as citations, and the search is billed', async () => {
    const before = searchHits;
    const r = await chat('Tell me about lagoons [[echo_request]]', { enable_web_search: 'on' });
    assert.equal(r.status, 200, JSON.stringify(r.json));
    assert.equal(searchHits, before + 1);
    const system = JSON.parse(r.json.choices[0].message.content)[0].content as string;
    assert.match(system, /\[1\] Lagoons of the Pacific/);
    assert.match(system, /https:\/\/example\.org\/reefs/);
    const cites = r.json.service_parameters.web_search_citations;
    assert.equal(cites.length, 3);
    assert.deepEqual(Object.keys(cites[0]).sort(), ['content', 'date', 'title', 'url']);
    assert.equal(cites[0].url, 'https://example.org/lagoons');
    const tokensCost = (r.json.usage.prompt_tokens * 1 + r.json.usage.completion_tokens * 2) / 1e6;
    assert.equal(r.json.cost.usd, Math.round((tokensCost + 0.01) * 1e6) / 1e6);
    const row = await lastUsage();
    assert.equal(Number(row.searches), 1);
  });

  test('"off" never searches; "auto" searches only when the question needs it', async () => {
    const before = searchHits;
    await chat('What is the latest news about lagoons today?', { enable_web_search: 'off' });
    assert.equal(searchHits, before);
    const creative = await chat('Write a short poem about the sea', { enable_web_search: 'auto' });
    assert.equal(searchHits, before);
    assert.deepEqual(creative.json.service_parameters.web_search_citations, []);
    const news = await chat('What is the latest news about lagoons today?', { enable_web_search: 'auto' });
    assert.equal(searchHits, before + 1);
    assert.equal(news.json.service_parameters.web_search_citations.length, 3);
  });

  test('citations: the model is asked for carets, and bracket forms become ^n^ / ^n,m^ (also across stream chunks)', async () => {
    const r = await chat('Lagoons? [[echo_request]]', { enable_web_search: 'on', enable_web_citations: true });
    assert.match(JSON.parse(r.json.choices[0].message.content)[0].content, /\^1\^/);
    const reply = '[[reply:Lagoons are shallow [1] and reefs enclose them [1, 2]. Tides move water<sup>3</sup>.]]';
    const plain = await chat(`Lagoons? ${reply}`, { enable_web_search: 'on', enable_web_citations: true });
    assert.equal(plain.json.choices[0].message.content, 'Lagoons are shallow ^1^ and reefs enclose them ^1,2^. Tides move water^3^.');
    const streamed = await chat(`Lagoons? ${reply}`, { enable_web_search: 'on', enable_web_citations: true }, { stream: true });
    const text = sseEvents(streamed.text)
      .slice(0, -1)
      .flatMap((e) => e.choices ?? [])
      .map((c: any) => c.delta?.content ?? '')
      .join('');
    assert.equal(text, 'Lagoons are shallow ^1^ and reefs enclose them ^1,2^. Tides move water^3^.');
    // Without citations asked for, the answer is left as the model wrote it.
    const untouched = await chat(`Lagoons? ${reply}`, { enable_web_search: 'on' });
    assert.match(untouched.json.choices[0].message.content, /\[1, 2\]/);
  });

  test('include_search_results_in_stream: the results are the first chunk of the stream', async () => {
    const r = await chat('Lagoons?', { enable_web_search: 'on', include_search_results_in_stream: true }, { stream: true });
    const events = sseEvents(r.text);
    assert.deepEqual(events[0].choices, []);
    assert.equal(events[0].service_parameters.web_search_citations.length, 3);
    assert.equal(events.at(-1), '[DONE]');
  });

  test('return_search_results_as_documents: the results are also a venice_web_search_documents tool call', async () => {
    const r = await chat('Lagoons?', { enable_web_search: 'on', return_search_results_as_documents: true });
    const call = r.json.choices[0].message.tool_calls[0];
    assert.equal(call.type, 'function');
    assert.equal(call.function.name, 'venice_web_search_documents');
    const docs = JSON.parse(call.function.arguments).documents;
    assert.equal(docs.length, 3);
    assert.equal(docs[0].url, 'https://example.org/lagoons');
    assert.equal(r.json.choices[0].message.content, 'Hello from the scripted engine.');
    const s = await chat('Lagoons?', { enable_web_search: 'on', return_search_results_as_documents: true }, { stream: true });
    const deltas = sseEvents(s.text)
      .slice(0, -1)
      .flatMap((e) => e.choices ?? [])
      .map((c: any) => c.delta);
    assert.equal(deltas[0].tool_calls[0].function.name, 'venice_web_search_documents');
  });

  test('a failing search provider: the request is still answered, without citations, and the search is not billed', async () => {
    failSearch = true;
    try {
      const r = await chat('Lagoons?', { enable_web_search: 'on' });
      assert.equal(r.status, 200);
      assert.deepEqual(r.json.service_parameters.web_search_citations, []);
      const tokensCost = (r.json.usage.prompt_tokens * 1 + r.json.usage.completion_tokens * 2) / 1e6;
      assert.equal(r.json.cost.usd, Math.round(tokensCost * 1e6) / 1e6);
      assert.equal(Number((await lastUsage()).searches), 0);
    } finally {
      failSearch = false;
    }
  });

  test('scraping: up to 5 URLs in the message become readable text in the context, bypassing search; only successful scrapes are billed', async () => {
    const before = searchHits;
    const r = await chat(`Summarise ${pagesUrl}/article and ${pagesUrl}/notes.txt and ${pagesUrl}/gone [[echo_request]]`, {
      enable_web_scraping: true,
      enable_web_search: 'on',
    });
    assert.equal(r.status, 200, JSON.stringify(r.json));
    assert.equal(searchHits, before, 'scraping bypasses web search');
    const system = JSON.parse(r.json.choices[0].message.content)[0].content as string;
    assert.match(system, /fed by three rivers/);
    assert.match(system, /Plain notes about tides/);
    assert.doesNotMatch(system, /NAVIGATION-NOISE|FOOTER-NOISE|<p>/);
    const row = await lastUsage();
    assert.equal(Number(row.scraped_urls), 2);
    const cites = r.json.service_parameters.web_search_citations;
    assert.equal(cites.length, 2);
    assert.equal(cites[0].title, 'The Quiet Lagoon');
  });

  test('enable_x_search on a search-native model: the flag goes upstream and the standard search is bypassed', async () => {
    const before = searchHits;
    const r = await post(h, '/chat/completions', key, {
      model: 'grok-like',
      messages: [{ role: 'user', content: 'latest news?' }],
      service_parameters: { enable_x_search: true, enable_web_search: 'on' },
    });
    assert.equal(r.status, 200);
    assert.equal(searchHits, before);
    assert.deepEqual(h.engine.requests.at(-1)!.body.search_parameters.mode, 'on');
  });

  test('POST /augment/search, /augment/scrape and /augment/text-parser, each billed', async () => {
    const s = await post(h, '/augment/search', key, { query: 'lagoons', limit: 2 });
    assert.equal(s.status, 200, JSON.stringify(s.json));
    assert.equal(s.json.query, 'lagoons');
    assert.equal(s.json.results.length, 2);
    const searched = await lastUsage();
    assert.deepEqual([searched.endpoint, searched.unit, Number(searched.quantity), Number(searched.searches)], ['/augment/search', 'call', 1, 1]);
    const sc = await post(h, '/augment/scrape', key, { url: `${pagesUrl}/article` });
    assert.equal(sc.status, 200, JSON.stringify(sc.json));
    assert.equal(sc.json.title, 'The Quiet Lagoon');
    assert.equal(sc.json.format, 'markdown');
    // Readability drops the heading that repeats the title; the paragraphs stay Markdown paragraphs.
    assert.match(sc.json.content, /^The quiet lagoon is fed by three rivers[^\n]+\n\nFishermen have worked/);
    assert.match(sc.json.content, /salinity weekly/);
    assert.ok(!/NAVIGATION-NOISE|FOOTER-NOISE/.test(sc.json.content));
    const scraped = await lastUsage();
    assert.deepEqual([scraped.endpoint, scraped.unit, Number(scraped.quantity), Number(scraped.scraped_urls)], ['/augment/scrape', 'call', 1, 1]);
    const form = new FormData();
    form.append('file', new Blob(['Meeting notes: the lagoon survey starts Monday.'], { type: 'text/plain' }), 'notes.txt');
    const tp = await fetch(`${h.base}/augment/text-parser`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form });
    const tj = await tp.json();
    assert.equal(tp.status, 200, JSON.stringify(tj));
    assert.match(tj.text, /lagoon survey starts Monday/);
    assert.ok(tj.tokens > 0);
    const row = await lastUsage();
    assert.equal(row.endpoint, '/augment/text-parser');
    assert.equal(Number(row.usd), 10_000);
    assert.deepEqual([row.unit, Number(row.quantity)], ['call', 1]);
  });

  test('a signed-in wallet uses the augment endpoints on its credit (SIGN-IN-WITH-X); without credit, the wallet 402', async () => {
    const account = evmWallet();
    const w = await ensureWallet(h.svc.store, 'eip155', account.address);
    const search = async () =>
      fetch(`${h.base}/augment/search`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'SIGN-IN-WITH-X': await signInHeader(h, account) },
        body: JSON.stringify({ query: 'lagoons', limit: 1 }),
      });
    const poor = await search();
    assert.equal(poor.status, 402, await poor.clone().text());
    assert.equal((await poor.json()).code, 'PAYMENT_REQUIRED');
    await grantUsd(h.svc.store, w.accountId, 1_000_000);
    const paid = await search();
    assert.equal(paid.status, 200, await paid.clone().text());
    assert.equal((await paid.json()).results.length, 1);
    await h.svc.ledger.drain();
    const rows = await h.svc.store.all<any>('SELECT endpoint FROM usage WHERE account_id = $1', [w.accountId]);
    assert.deepEqual(
      rows.map((r) => r.endpoint),
      ['/augment/search'],
    );
  });

  test('/augment errors: bad input is a 4xx with our error body and nothing is billed', async () => {
    await h.svc.ledger.drain();
    const count = async () => Number((await h.svc.store.get<any>('SELECT COUNT(*) AS n FROM usage WHERE account_id = $1', [accountId])).n);
    const before = await count();
    assert.equal((await post(h, '/augment/search', key, { query: '' })).status, 400);
    assert.equal((await post(h, '/augment/scrape', key, { url: 'not a url' })).status, 400);
    const refused = await post(h, '/augment/scrape', key, { url: 'http://localhost:9/private' });
    assert.equal(refused.status, 400);
    const missing = await post(h, '/augment/scrape', key, { url: `${pagesUrl}/gone` });
    assert.equal(missing.status, 400);
    assert.equal((await post(h, '/augment/text-parser', key, { file: 'x' })).status, 415);
    const form = new FormData();
    form.append('other', 'x');
    const noFile = await fetch(`${h.base}/augment/text-parser`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form });
    assert.equal(noFile.status, 400);
    // 300,000 empty parts (issue 28): refused by the bounded multipart reader, quickly, and not billed.
    const boundary = 'xx';
    const parts = Buffer.from(`${`--${boundary}\r\ncontent-disposition: form-data; name="a"\r\n\r\n\r\n`.repeat(300_000)}--${boundary}--\r\n`);
    const health = (async () => {
      let worst = 0;
      for (let i = 0; i < 10; i++) {
        const t0 = performance.now();
        await fetch(`${h.origin}/healthz`);
        worst = Math.max(worst, performance.now() - t0);
        await new Promise((r) => setTimeout(r, 20));
      }
      return worst;
    })();
    const flood = await fetch(`${h.base}/augment/text-parser`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': `multipart/form-data; boundary=${boundary}` },
      body: parts,
    });
    assert.equal(flood.status, 400, await flood.text());
    // Parsing the flood on the event loop would hold /healthz for seconds; a loaded 2-core machine alone reaches ~0.7 s.
    const worst = await health;
    assert.ok(worst < 1500, `/healthz stays quick: ${worst.toFixed(0)} ms at worst`);
    await h.svc.ledger.drain();
    assert.equal(await count(), before);
  });
});

describe('with two search providers', () => {
  let h: Harness;
  let key: string;
  let accountId: string;
  before(async () => {
    h = await startHarness({
      env: { LAGOON_SEARCH_PROVIDER: 'searxng,brave', LAGOON_SEARXNG_URL: searxUrl, LAGOON_BRAVE_API_KEY: 'brave-key', LAGOON_BRAVE_URL: braveUrl },
    });
    ({ key, accountId } = await h.newAccount({ usd: 5 }));
  });
  after(() => h.close());

  test('/augment/search: search_provider picks any configured provider; the first is the default', async () => {
    const byDefault = await post(h, '/augment/search', key, { query: 'lagoons' });
    assert.equal(byDefault.status, 200, JSON.stringify(byDefault.json));
    assert.equal(byDefault.json.results[0].title, RESULTS[0].title);
    const braveAnswer = await post(h, '/augment/search', key, { query: 'lagoons', search_provider: 'Brave' });
    assert.equal(braveAnswer.status, 200, JSON.stringify(braveAnswer.json));
    assert.deepEqual(braveAnswer.json.results, [{ title: 'Brave lagoon result', url: 'https://example.org/brave', content: 'Found by Brave.', date: '' }]);
    const searxAnswer = await post(h, '/augment/search', key, { query: 'lagoons', search_provider: 'searxng', limit: 1 });
    assert.deepEqual(
      searxAnswer.json.results.map((r: any) => r.url),
      [RESULTS[0].url],
    );
  });

  test('/augment/search: an unconfigured search_provider is a 400 naming the configured ones, and nothing is billed', async () => {
    const count = async () => (
      await h.svc.ledger.drain(), Number((await h.svc.store.get<any>('SELECT COUNT(*) AS n FROM usage WHERE account_id = $1', [accountId])).n)
    );
    const before = await count();
    const r = await post(h, '/augment/search', key, { query: 'lagoons', search_provider: 'google' });
    assert.equal(r.status, 400);
    assert.match(r.json.error, /search_provider "google" is not configured here; configured: "searxng", "brave"/);
    assert.equal(await count(), before);
  });
});

describe('without a search provider', () => {
  let h: Harness;
  let key: string;
  before(async () => {
    h = await startHarness();
    ({ key } = await h.newAccount());
  });
  after(() => h.close());

  test('/augment/search says search is not configured; "auto" simply does not search', async () => {
    const r = await post(h, '/augment/search', key, { query: 'lagoons' });
    assert.equal(r.status, 400);
    assert.match(r.json.error, /not configured/);
    const auto = await post(h, '/chat/completions', key, {
      model: 'scripted-model',
      messages: [{ role: 'user', content: 'latest news today?' }],
      service_parameters: { enable_web_search: 'auto' },
    });
    assert.equal(auto.status, 200);
    assert.deepEqual(auto.json.service_parameters.web_search_citations, []);
  });
});
