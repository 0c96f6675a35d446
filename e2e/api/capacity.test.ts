// Admission to an OpenAI-compatible upstream never means silence: at most maxConcurrency requests are sent (each on
// its own connection), maxQueue wait at most queueTimeoutMs, the rest get 503 MODEL_AT_CAPACITY with Retry-After at
// once, and an upstream that accepts the request but sends no headers is a 504 within timeoutMs of dispatch.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type Harness, post, scriptedModel, startHarness } from '../support/harness.ts';

let h: Harness;
let key: string;
before(async () => {
  h = await startHarness({
    models: (url) => [
      scriptedModel('two-slot', url, {
        engine: { kind: 'openai', baseUrl: url, model: 'scripted', maxConcurrency: 2, maxQueue: 2, queueTimeoutMs: 2500, timeoutMs: 700, totalTimeoutMs: 5000 },
      }),
      scriptedModel('one-slot', url, {
        engine: { kind: 'openai', baseUrl: url, model: 'scripted', maxConcurrency: 1, maxQueue: 1, queueTimeoutMs: 300, timeoutMs: 3000 },
      }),
      scriptedModel('hangs', url, { engine: { kind: 'openai', baseUrl: url, model: 'scripted', timeoutMs: 500, totalTimeoutMs: 10_000 } }),
    ],
  });
  ({ key } = await h.newAccount({ usd: 50 }));
});
after(() => h.close());

const chat = (model: string, content: string, extra: Record<string, unknown> = {}) =>
  timed(post(h, '/chat/completions', key, { model, messages: [{ role: 'user', content }], ...extra }));

async function timed<T>(p: Promise<T>) {
  const t0 = performance.now();
  const r = await p;
  return { ...r, ms: performance.now() - t0 };
}

function assertCapacity(r: { status: number; json: any; headers: Headers }) {
  assert.equal(r.status, 503, JSON.stringify(r.json));
  assert.equal(r.json.code, 'MODEL_AT_CAPACITY');
  assert.match(r.headers.get('retry-after') ?? '', /^\d+$/);
}

const upstreamCount = (marker: string) => h.engine.requests.filter((r) => JSON.stringify(r.body.messages).includes(marker)).length;

test('maxConcurrency 2, maxQueue 2, 10 at once: 2 run, 2 wait and run, 6 get 503 with Retry-After at once', async () => {
  const rs = await Promise.all(Array.from({ length: 10 }, (_, i) => chat('two-slot', `[[delay:400]] burst ${i}`)));
  const ok = rs.filter((r) => r.status === 200);
  const refused = rs.filter((r) => r.status !== 200);
  assert.equal(ok.length, 4, rs.map((r) => r.status).join(','));
  assert.equal(refused.length, 6);
  // "At once": before any admitted request, which the engine holds 400 ms, has been answered (a fixed bound in ms
  // fails on a loaded machine, where everything is slower together).
  const firstAnswer = Math.min(...ok.map((r) => r.ms));
  for (const r of refused) {
    assertCapacity(r);
    assert.ok(r.ms < firstAnswer, `refused after ${r.ms.toFixed(0)} ms, the first answer came after ${firstAnswer.toFixed(0)} ms`);
  }
  // Two answered after one delay, the two queued ones after a second: a gap of about one delay (400 ms) between the
  // pairs, measured between them rather than from zero (a loaded machine answered the first pair after 970 ms).
  const times = ok.map((r) => r.ms).sort((a, b) => a - b);
  assert.ok(times[1] - times[0] < 300 && times[2] - times[1] >= 300, times.map((t) => t.toFixed(0)).join(','));
  assert.equal(upstreamCount('burst'), 4);
});

test('a queued request that cannot start within queueTimeoutMs gets 503 with Retry-After', async () => {
  const first = chat('one-slot', '[[delay:1500]] long one');
  await new Promise((r) => setTimeout(r, 100));
  const queued = await chat('one-slot', 'queued one');
  assertCapacity(queued);
  assert.ok(queued.ms >= 280 && queued.ms < 1000, `${queued.ms.toFixed(0)} ms`);
  assert.equal((await first).status, 200);
  assert.equal(upstreamCount('queued one'), 0);
});

test('a waiting request whose client goes away leaves the queue at once', async () => {
  const first = chat('one-slot', '[[delay:350]] holder');
  await new Promise((r) => setTimeout(r, 100));
  const ac = new AbortController();
  const gone = fetch(`${h.base}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ model: 'one-slot', messages: [{ role: 'user', content: 'gives up' }] }),
    signal: ac.signal,
  }).catch((e: Error) => e);
  await new Promise((r) => setTimeout(r, 50));
  ac.abort();
  assert.ok((await gone) instanceof Error);
  await new Promise((r) => setTimeout(r, 50));
  // The queue (of one) is free again: this one waits rather than being refused as a full queue.
  const next = await chat('one-slot', 'takes the place');
  assert.equal(next.status, 200, JSON.stringify(next.json));
  assert.equal((await first).status, 200);
  assert.equal(upstreamCount('gives up'), 0);
});

test('an upstream that accepts and never sends headers: 504 within timeoutMs, streamed or not', async () => {
  for (const stream of [false, true]) {
    const r = await chat('hangs', `[[hang]] stream=${stream}`, { stream });
    assert.equal(r.status, 504, JSON.stringify(r.json));
    assert.equal(r.json.code, 'REQUEST_TIMEOUT');
    assert.ok(r.ms >= 450 && r.ms < 1500, `${r.ms.toFixed(0)} ms`);
  }
});

test('hanging upstream, 10 at once on two-slot: nobody waits in silence; each answer comes within its bounds', async () => {
  const rs = await Promise.all(Array.from({ length: 10 }, (_, i) => chat('two-slot', `[[hang]] pile ${i}`, { stream: i % 2 === 0 })));
  const byStatus = (s: number) => rs.filter((r) => r.status === s);
  assert.equal(byStatus(503).length, 6, rs.map((r) => r.status).join(','));
  // The two sent at once time out after timeoutMs (700); the two queued are sent then and time out 700 ms later:
  // the header timeout runs from dispatch, not from arrival. The refusals come before any of that.
  const timedOut = byStatus(504);
  const firstTimeout = Math.min(...timedOut.map((r) => r.ms));
  for (const r of byStatus(503)) assert.ok(r.ms < firstTimeout, `refused after ${r.ms.toFixed(0)} ms, a timeout after ${firstTimeout.toFixed(0)} ms`);
  assert.equal(timedOut.length, 4);
  for (const r of timedOut) assert.equal(r.json.code, 'REQUEST_TIMEOUT');
  const times = timedOut.map((r) => r.ms).sort((a, b) => a - b);
  assert.ok(times[0] >= 650 && times[1] < 1200, times.map((t) => t.toFixed(0)).join(','));
  assert.ok(times[2] >= 1350 && times[3] < 2200, times.map((t) => t.toFixed(0)).join(','));
  assert.equal(upstreamCount('pile'), 4);
});
