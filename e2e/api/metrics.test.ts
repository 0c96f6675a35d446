// GET /metrics: off by default (404), a bearer token when one is set (401 without it), loopback-only without one;
// the text parses as Prometheus exposition, and its counters move with traffic (requests by route pattern and status,
// tokens and cost by model, a 429 refusal, an upstream failure) while the gauges read the live state.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { after, before, describe, test } from 'node:test';
import parse from 'parse-prometheus-text-format';
import { type Harness, get, post, scriptedModel, startHarness } from '../support/harness.ts';
import { createHttpServer } from '../../lib/http/server.ts';
import { createTestDatabase } from '../support/pg.ts';

const TOKEN = 'metrics-test-token-1234';

async function scrape(h: Harness, token: string | null = TOKEN) {
  const res = await fetch(`${h.origin}/metrics`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  const text = await res.text();
  return { status: res.status, type: res.headers.get('content-type'), text };
}

type Families = ReturnType<typeof parse>;

/** The value of one counter or gauge series (0 when absent). */
function value(families: Families, name: string, labels: Record<string, string> = {}): number {
  const family = families.find((f) => f.name === name);
  const sample = family?.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
  return sample ? Number(sample.value) : 0;
}

/**
 * A histogram series' observation count, from its `_count` line: the parser folds a histogram's series into bucket
 * maps without their labels, so the count is read from the text it parsed.
 */
function histogramCount(text: string, name: string, labels: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${name}_count{${labels}}`));
  return line ? Number(line.split(' ').at(-1)) : 0;
}

async function families(h: Harness): Promise<Families & { text: string }> {
  const r = await scrape(h);
  assert.equal(r.status, 200, r.text);
  return Object.assign(parse(r.text), { text: r.text });
}

for (const backend of ['sqlite', 'postgres'] as const) {
  describe(`metrics, enabled with a token (${backend})`, () => {
    let h: Harness;
    let drop: (() => Promise<void>) | undefined;
    before(async () => {
      let databaseUrl: string | undefined;
      if (backend === 'postgres') ({ url: databaseUrl, drop } = await createTestDatabase());
      h = await startHarness({
        databaseUrl,
        env: { LAGOON_METRICS: '1', LAGOON_METRICS_TOKEN: TOKEN },
        // One request per window on the L tier: the second is refused.
        models: (url) => [
          scriptedModel('tight-model', url, { tier: 'L' }),
          // One request at a time: a second one waits in the engine's queue.
          scriptedModel('narrow-model', url, {
            engine: { kind: 'openai', baseUrl: url, model: 'scripted', timeoutMs: 60_000, totalTimeoutMs: 60_000, maxConcurrency: 1 },
          }),
        ],
        limits: { text: { default: { L: { rpm: 1, tpm: 1_000_000 } } } },
      });
    });
    after(async () => {
      await h.close();
      await drop?.();
    });

    test('without the token, or with another, it is 401 in our error body', async () => {
      for (const token of [null, 'wrong-token']) {
        const r = await scrape(h, token);
        assert.equal(r.status, 401);
        assert.equal(JSON.parse(r.text).code, 'AUTHENTICATION_FAILED');
        assert.doesNotMatch(r.text, /lagoon_/);
      }
    });

    test('the exposition parses, and its counters move with traffic', async () => {
      const { key } = await h.newAccount();
      const chat = (model: string, content: string) => post(h, '/chat/completions', key, { model, messages: [{ role: 'user', content }] });
      const was = await families(h);

      const ok = await chat('scripted-model', '[[tokens:7]] hello');
      assert.equal(ok.status, 200, ok.text);
      assert.equal((await chat('tight-model', 'first')).status, 200);
      const refused = await chat('tight-model', 'second');
      assert.equal(refused.status, 429, refused.text);
      const failed = await chat('scripted-model', '[[status:500]]');
      assert.equal(failed.status, 500, failed.text);
      assert.equal((await get(h, '/no-such-endpoint-7f3a', key)).status, 404);

      const now = await families(h);
      const delta = (name: string, labels: Record<string, string> = {}) => value(now, name, labels) - value(was, name, labels);
      const route = { method: 'POST', route: '/api/v1/chat/completions' };
      assert.equal(delta('lagoon_http_requests_total', { ...route, status: '200' }), 2);
      assert.equal(delta('lagoon_http_requests_total', { ...route, status: '429' }), 1);
      assert.equal(delta('lagoon_http_requests_total', { ...route, status: '500' }), 1);
      const series = 'method="POST",route="/api/v1/chat/completions",status="200"';
      const timed = (f: { text: string }) => histogramCount(f.text, 'lagoon_http_request_duration_seconds', series);
      assert.equal(timed(now) - timed(was), 2);
      assert.ok(now.some((f) => f.name === 'lagoon_http_request_duration_seconds' && f.type === 'HISTOGRAM'));
      // An unknown path is counted under one label, never its raw path.
      assert.equal(delta('lagoon_http_requests_total', { method: 'GET', route: 'unmatched', status: '404' }), 1);
      assert.doesNotMatch(await scrape(h).then((r) => r.text), /no-such-endpoint/);

      const usage = ok.json.usage;
      assert.equal(delta('lagoon_tokens_total', { model: 'scripted-model', kind: 'completion' }), usage.completion_tokens);
      assert.equal(delta('lagoon_tokens_total', { model: 'scripted-model', kind: 'prompt' }), usage.prompt_tokens);
      assert.ok(Math.abs(delta('lagoon_cost_usd_total', { model: 'scripted-model' }) - ok.json.cost.usd) < 1e-9);
      assert.equal(delta('lagoon_rate_limit_refusals_total', { type: 'RPM' }), 1);
      assert.equal(delta('lagoon_upstream_errors_total', { kind: 'failed' }), 1);

      // Gauges, read at scrape time: nothing waits, nothing is held, no job is queued.
      assert.equal(value(now, 'lagoon_engine_queue_depth'), 0);
      assert.equal(value(now, 'lagoon_ledger_holds_open'), 0);
      assert.equal(value(now, 'lagoon_jobs', { status: 'queued' }), 0);
      assert.ok(now.some((f) => f.name === 'lagoon_jobs' && f.type === 'GAUGE'));
      assert.ok(now.some((f) => f.name === 'lagoon_process_resident_memory_bytes'));
    });

    test('the gauges read the live state: a request waiting for the engine, both holding credit', async () => {
      const { key } = await h.newAccount();
      const gauges = async () => {
        const f = await families(h);
        return [value(f, 'lagoon_engine_queue_depth'), value(f, 'lagoon_engine_requests_running'), value(f, 'lagoon_ledger_holds_open')];
      };
      const until = async (want: number[]) => {
        for (let i = 0; i < 200; i++) {
          const got = await gauges();
          if (got.every((v, j) => v === want[j])) return;
          await new Promise((r) => setTimeout(r, 25));
        }
        assert.deepEqual(await gauges(), want);
      };
      const clients = [new AbortController(), new AbortController()];
      const calls = clients.map((c) =>
        fetch(`${h.base}/chat/completions`, {
          method: 'POST',
          signal: c.signal,
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'narrow-model', messages: [{ role: 'user', content: '[[hang]]' }] }),
        }).catch(() => undefined),
      );
      // One runs (it never answers), the other waits for the slot; each holds its worst case.
      await until([1, 1, 2]);
      for (const c of clients) c.abort();
      await Promise.all(calls);
      await until([0, 0, 0]);
    });
  });
}

describe('metrics, off by default', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  test('GET /metrics is 404 in our error body, even with a token', async () => {
    const r = await scrape(h);
    assert.equal(r.status, 404);
    assert.equal(JSON.parse(r.text).code, 'NOT_FOUND');
  });
});

describe('metrics without a token', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ env: { LAGOON_METRICS: '1' } });
  });
  after(() => h.close());

  test('loopback clients read them', async () => {
    const r = await scrape(h, null);
    assert.equal(r.status, 200);
    assert.match(r.type ?? '', /^text\/plain/);
    assert.ok(parse(r.text).some((f) => f.name === 'lagoon_http_requests_total'));
  });

  test('other clients are refused (403), whatever they claim in X-Forwarded-For', async (t) => {
    const external = Object.values(os.networkInterfaces())
      .flat()
      .find((a) => a && a.family === 'IPv4' && !a.internal)?.address;
    if (!external) return t.skip('this machine has no non-loopback IPv4 address');
    // A second server over the same service, on the external address: its clients are not loopback.
    const { server } = createHttpServer(h.svc);
    await new Promise<void>((resolve) => server.listen(0, external, resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const res = await fetch(`http://${external}:${port}/metrics`, { headers: { 'x-forwarded-for': '127.0.0.1' } });
      assert.equal(res.status, 403);
      assert.equal((await res.json()).code, 'FORBIDDEN');
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});
