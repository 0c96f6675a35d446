import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createBrave } from './search/brave.ts';
import { normaliseDate } from './search/clean.ts';
import { loadConfig } from '../config.ts';
import { searchProviderFrom } from './search/from-env.ts';
import { createSearxng } from './search/searxng.ts';

let server: http.Server;
let base: string;
let lastRequest: { url: URL; headers: http.IncomingHttpHeaders } | undefined;

const searxngResults = [
  {
    title: ' Lagoon  <b>basics</b> ',
    url: 'https://a.example/lagoon',
    content: 'A <em>lagoon</em> is\n  shallow &amp; calm.',
    publishedDate: '2024-05-01T10:00:00',
  },
  { title: 'Duplicate of the first', url: 'https://a.example/lagoon#section', content: 'same page' },
  { title: '', url: 'https://b.example/no-title', content: 'dropped' },
  { title: 'No URL', content: 'dropped' },
  { title: 'Script URL', url: 'javascript:alert(1)', content: 'dropped' },
  { title: 'Reef', url: 'https://c.example/reef', content: '<p>Reefs</p><p>shelter lagoons.</p>', publishedDate: null },
  { title: 'Atoll', url: 'https://d.example/atoll', content: 'Ring-shaped reef.', publishedDate: '2023-12-24' },
  { title: 'Extra', url: 'https://e.example/extra', content: 'beyond the cap' },
];

const braveResults = [
  {
    title: 'Brave <strong>lagoon</strong>',
    url: 'https://a.example/b',
    description: 'The <strong>lagoon</strong> of <strong>Venice</strong>.',
    page_age: '2024-03-02T08:30:00',
    age: 'March 2, 2024',
  },
  { title: 'Second', url: 'https://b.example/b', description: 'Plain text.', age: '3 days ago' },
  { title: 'Third', url: 'https://c.example/b', description: 'More.' },
];

function send(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(typeof body === 'string' ? body : JSON.stringify(body));
}

/** Loopback fixture: the path prefix picks the behaviour, the rest is the provider's own API path. */
function handle(req: http.IncomingMessage, res: http.ServerResponse): void {
  const url = new URL(req.url ?? '/', base);
  lastRequest = { url, headers: req.headers };
  const path = url.pathname;
  if (path === '/searxng/search') send(res, 200, { query: url.searchParams.get('q'), results: searxngResults });
  else if (path === '/empty/search') send(res, 200, { results: [] });
  else if (path === '/no-list/search') send(res, 200, { error: 'nope' });
  else if (path === '/fail/search' || path === '/fail/res/v1/web/search') send(res, 500, 'engine exploded');
  else if (path === '/badjson/search' || path === '/badjson/res/v1/web/search') send(res, 200, '{"results": [');
  else if (path === '/slow/search' || path === '/slow/res/v1/web/search') {
    // never answers
  } else if (path === '/brave/res/v1/web/search') {
    if (req.headers['x-subscription-token'] !== 'test-key') send(res, 401, { error: 'bad token' });
    else send(res, 200, { web: { results: braveResults.slice(0, Number(url.searchParams.get('count'))) } });
  } else if (path === '/brave-none/res/v1/web/search') send(res, 200, { query: {} });
  else send(res, 404, 'not here');
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const s = http.createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address() as AddressInfo;
  await new Promise((resolve) => s.close(resolve));
  return port;
}

before(async () => {
  server = http.createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(() => {
  server.closeAllConnections();
  server.close();
});

describe('SearXNG', () => {
  it('asks the JSON API and returns cleaned, deduplicated results up to count', async () => {
    const provider = createSearxng({ baseUrl: `${base}/searxng/`, language: 'en' });
    assert.equal(provider.name, 'searxng');
    const results = await provider.search('lagoon & reef', { count: 3 });
    assert.equal(lastRequest?.url.pathname, '/searxng/search');
    assert.equal(lastRequest?.url.searchParams.get('q'), 'lagoon & reef');
    assert.equal(lastRequest?.url.searchParams.get('format'), 'json');
    assert.equal(lastRequest?.url.searchParams.get('language'), 'en');
    assert.deepEqual(results, [
      { title: 'Lagoon basics', url: 'https://a.example/lagoon', content: 'A lagoon is shallow & calm.', date: '2024-05-01T10:00:00.000Z' },
      { title: 'Reef', url: 'https://c.example/reef', content: 'Reefs shelter lagoons.' },
      { title: 'Atoll', url: 'https://d.example/atoll', content: 'Ring-shaped reef.', date: '2023-12-24' },
    ]);
  });

  it('returns every usable result when count allows, and none for count 0', async () => {
    const provider = createSearxng({ baseUrl: `${base}/searxng` });
    const all = await provider.search('lagoon', { count: 50 });
    assert.deepEqual(
      all.map((r) => r.url),
      ['https://a.example/lagoon', 'https://c.example/reef', 'https://d.example/atoll', 'https://e.example/extra'],
    );
    assert.equal(lastRequest?.url.searchParams.has('language'), false);
    assert.deepEqual(await provider.search('lagoon', { count: 0 }), []);
    assert.deepEqual(await createSearxng({ baseUrl: `${base}/empty` }).search('x', { count: 5 }), []);
  });

  it('caps results at fetchCount', async () => {
    const results = await createSearxng({ baseUrl: `${base}/searxng`, fetchCount: 2 }).search('lagoon', { count: 10 });
    assert.equal(results.length, 2);
  });

  it('throws a descriptive error on HTTP errors, bad JSON, a wrong shape, timeouts and refused connections', async () => {
    const search = (baseUrl: string, timeoutMs?: number) => createSearxng({ baseUrl, timeoutMs }).search('q', { count: 3 });
    await assert.rejects(search(`${base}/fail`), { message: 'searxng: HTTP 500 (engine exploded)' });
    await assert.rejects(search(`${base}/badjson`), { message: 'searxng: response is not valid JSON' });
    await assert.rejects(search(`${base}/no-list`), { message: 'searxng: response has no results list' });
    await assert.rejects(search(`${base}/slow`, 150), { message: 'searxng: timed out after 150 ms' });
    await assert.rejects(search(`http://127.0.0.1:${await closedPort()}`), { message: 'searxng: connection refused' });
  });

  it('stops when the caller cancels', async () => {
    const controller = new AbortController();
    const pending = createSearxng({ baseUrl: `${base}/slow`, timeoutMs: 10_000 }).search('q', { count: 3, signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    await assert.rejects(pending, { message: 'searxng: search was cancelled' });
  });
});

describe('Brave', () => {
  it('sends the token and count, strips <strong> and prefers page_age for the date', async () => {
    const provider = createBrave({ apiKey: 'test-key', baseUrl: `${base}/brave` });
    assert.equal(provider.name, 'brave');
    const results = await provider.search('venice lagoon', { count: 2 });
    assert.equal(lastRequest?.url.searchParams.get('q'), 'venice lagoon');
    assert.equal(lastRequest?.url.searchParams.get('count'), '2');
    assert.equal(lastRequest?.headers.accept, 'application/json');
    assert.deepEqual(results, [
      { title: 'Brave lagoon', url: 'https://a.example/b', content: 'The lagoon of Venice.', date: '2024-03-02T08:30:00.000Z' },
      { title: 'Second', url: 'https://b.example/b', content: 'Plain text.', date: '3 days ago' },
    ]);
  });

  it('asks for at most 20 (the API maximum) and treats a response without web results as none', async () => {
    await createBrave({ apiKey: 'test-key', baseUrl: `${base}/brave` }).search('q', { count: 100 });
    assert.equal(lastRequest?.url.searchParams.get('count'), '20');
    assert.deepEqual(await createBrave({ apiKey: 'test-key', baseUrl: `${base}/brave-none` }).search('q', { count: 5 }), []);
  });

  it('throws a descriptive error on a bad key, HTTP errors, bad JSON, timeouts and refused connections', async () => {
    const search = (baseUrl: string, apiKey = 'test-key', timeoutMs?: number) => createBrave({ apiKey, baseUrl, timeoutMs }).search('q', { count: 3 });
    await assert.rejects(search(`${base}/brave`, 'wrong-key'), { message: 'brave: HTTP 401 ({"error":"bad token"})' });
    await assert.rejects(search(`${base}/fail`), { message: 'brave: HTTP 500 (engine exploded)' });
    await assert.rejects(search(`${base}/badjson`), { message: 'brave: response is not valid JSON' });
    await assert.rejects(search(`${base}/slow`, 'test-key', 150), { message: 'brave: timed out after 150 ms' });
    await assert.rejects(search(`http://127.0.0.1:${await closedPort()}`), { message: 'brave: connection refused' });
  });
});

// The provider the configuration (LAGOON_SEARCH_* and friends) gives.
const searchProviderFromEnv = (env: Record<string, string>) => searchProviderFrom(loadConfig(env).search);

describe('search provider from the configuration', () => {
  it('is undefined when no provider is set', () => {
    assert.equal(searchProviderFromEnv({}), undefined);
    assert.equal(searchProviderFromEnv({ LAGOON_SEARCH_PROVIDER: ' ' }), undefined);
  });

  it('fails loudly on missing or invalid settings', () => {
    const cases: [Record<string, string>, RegExp][] = [
      [{ LAGOON_SEARCH_PROVIDER: 'searxng' }, /LAGOON_SEARCH_PROVIDER=searxng needs LAGOON_SEARXNG_URL/],
      [{ LAGOON_SEARCH_PROVIDER: 'searxng', LAGOON_SEARXNG_URL: 'not a url' }, /LAGOON_SEARXNG_URL is not a valid URL/],
      [{ LAGOON_SEARCH_PROVIDER: 'searxng', LAGOON_SEARXNG_URL: 'ftp://x' }, /LAGOON_SEARXNG_URL must be an http or https URL/],
      [{ LAGOON_SEARCH_PROVIDER: 'brave' }, /LAGOON_SEARCH_PROVIDER=brave needs LAGOON_BRAVE_API_KEY/],
      [{ LAGOON_SEARCH_PROVIDER: 'brave', LAGOON_BRAVE_API_KEY: 'k', LAGOON_BRAVE_URL: 'nope' }, /LAGOON_BRAVE_URL is not a valid URL/],
      [{ LAGOON_SEARCH_PROVIDER: 'bing' }, /LAGOON_SEARCH_PROVIDER must be "searxng" or "brave", got "bing"/],
      [
        { LAGOON_SEARCH_PROVIDER: 'brave', LAGOON_BRAVE_API_KEY: 'k', LAGOON_SEARCH_TIMEOUT_MS: '5s' },
        /LAGOON_SEARCH_TIMEOUT_MS must be a positive whole number/,
      ],
      [{ LAGOON_SEARCH_PROVIDER: 'brave', LAGOON_BRAVE_API_KEY: 'k', LAGOON_SEARCH_RESULTS: '0' }, /LAGOON_SEARCH_RESULTS must be a positive whole number/],
    ];
    for (const [env, message] of cases) assert.throws(() => searchProviderFromEnv(env), message, JSON.stringify(env));
  });

  it('takes several providers, comma-separated: the first is the default, each needs its own settings', () => {
    const env = { LAGOON_SEARCH_PROVIDER: 'brave, SearXNG,brave', LAGOON_SEARXNG_URL: `${base}/searxng`, LAGOON_BRAVE_API_KEY: 'k' };
    const config = loadConfig(env);
    assert.deepEqual(
      config.searchAll.map((c) => c.provider),
      ['brave', 'searxng'],
    );
    assert.equal(config.search?.provider, 'brave');
    assert.throws(() => loadConfig({ ...env, LAGOON_SEARXNG_URL: '' }), /LAGOON_SEARCH_PROVIDER=searxng needs LAGOON_SEARXNG_URL/);
    assert.throws(() => loadConfig({ ...env, LAGOON_SEARCH_PROVIDER: 'searxng,bing' }), /LAGOON_SEARCH_PROVIDER must be "searxng" or "brave", got "bing"/);
    assert.deepEqual(loadConfig({}).searchAll, []);
  });

  it('builds SearXNG with the configured result cap', async () => {
    const provider = searchProviderFromEnv({ LAGOON_SEARCH_PROVIDER: 'SearXNG', LAGOON_SEARXNG_URL: `${base}/searxng` });
    assert.equal(provider?.name, 'searxng');
    // Default cap 5; the fixture has 4 usable results.
    assert.equal((await provider!.search('q', { count: 10 })).length, 4);
    const capped = searchProviderFromEnv({ LAGOON_SEARCH_PROVIDER: 'searxng', LAGOON_SEARXNG_URL: `${base}/searxng`, LAGOON_SEARCH_RESULTS: '2' });
    assert.equal((await capped!.search('q', { count: 10 })).length, 2);
    assert.equal((await capped!.search('q', { count: 1 })).length, 1);
  });

  it('builds Brave with the key, URL and timeout from the environment', async () => {
    const env = { LAGOON_SEARCH_PROVIDER: 'brave', LAGOON_BRAVE_API_KEY: 'test-key', LAGOON_BRAVE_URL: `${base}/brave`, LAGOON_SEARCH_RESULTS: '3' };
    const provider = searchProviderFromEnv(env);
    assert.equal(provider?.name, 'brave');
    assert.equal((await provider!.search('q', { count: 10 })).length, 3);
    assert.equal(lastRequest?.url.searchParams.get('count'), '3');
    const slow = searchProviderFromEnv({ ...env, LAGOON_BRAVE_URL: `${base}/slow`, LAGOON_SEARCH_TIMEOUT_MS: '120' });
    await assert.rejects(slow!.search('q', { count: 3 }), { message: 'brave: timed out after 120 ms' });
  });
});

describe('normaliseDate', () => {
  it('gives ISO 8601 where it can and keeps what it cannot read', () => {
    assert.equal(normaliseDate('2024-05-01T10:00:00+02:00'), '2024-05-01T08:00:00.000Z');
    assert.equal(normaliseDate('2024-05-01 10:00:00'), '2024-05-01T10:00:00.000Z');
    assert.equal(normaliseDate('2024-05-01'), '2024-05-01');
    assert.equal(normaliseDate('May 1, 2024'), '2024-05-01');
    assert.equal(normaliseDate('2 hours ago'), '2 hours ago');
    assert.equal(normaliseDate(''), undefined);
    assert.equal(normaliseDate(null), undefined);
  });
});
