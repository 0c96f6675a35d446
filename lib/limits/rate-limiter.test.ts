// RateLimiter in process memory: exact admission under concurrency, refusals and their headers, token
// reservations, and the figures per class and tier.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ApiError } from '../api/errors.ts';
import { DEFAULT_LIMITS } from './config.ts';
import { RateLimiter, rateLimitTypeOf, type LimitSubject } from './rate-limiter.ts';
import { limits, model } from '../../e2e/support/limits/models.ts';

const N = 5;
const short = limits({ windowSeconds: 2, image: { default: { rpm: N } }, text: { default: { L: { rpm: 100, tpm: 1000 } } } });

const subject = (over: Partial<LimitSubject> = {}): LimitSubject => ({
  credential: 'key-1',
  modelId: 'img',
  model: model('image'),
  tier: 'default',
  ...over,
});

async function settleAll(n: number, fn: () => Promise<unknown>) {
  const results = await Promise.allSettled(Array.from({ length: n }, fn));
  const admitted = results.filter((r) => r.status === 'fulfilled').length;
  const refused = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
  return { admitted, refused };
}

describe('RateLimiter (memory)', () => {
  test('of 3N concurrent admits exactly N pass; the rest get 429 with retry-after and headers; the window resets', async (t) => {
    // The memory counters read Date.now: a mocked clock moves the window on without waiting for it.
    t.mock.timers.enable({ apis: ['Date'], now: Date.now() });
    const rl = new RateLimiter(short);
    const k = subject();
    const { admitted, refused } = await settleAll(3 * N, () => rl.admit(k, 0));
    assert.equal(admitted, N);
    assert.equal(refused.length, 2 * N);

    const e = refused[0];
    assert.ok(e instanceof ApiError);
    assert.equal(e.status, 429);
    assert.equal(e.code, 'RATE_LIMIT_EXCEEDED');
    assert.equal(e.message, `Rate limit exceeded: ${N} requests per 2 seconds for model img`);
    assert.equal(rateLimitTypeOf(e), 'RPM');
    assert.deepEqual(e.extra, { type: 'RPM' });
    const h = e.headers ?? {};
    const retry = Number(h['retry-after']);
    assert.ok(Number.isInteger(retry) && retry >= 1 && retry <= 2, `retry-after ${h['retry-after']}`);
    assert.equal(h['x-ratelimit-limit-requests'], String(N));
    assert.equal(h['x-ratelimit-remaining-requests'], '0');
    const reset = Number(h['x-ratelimit-reset-requests']);
    const nowS = Date.now() / 1000;
    assert.ok(reset >= nowS - 1 && reset <= nowS + 3, `reset ${reset} vs now ${nowS}`);
    assert.equal(h['x-ratelimit-type'], 'api_key');
    assert.equal(h['x-ratelimit-limit-tokens'], undefined, 'no token headers for an image model');

    // Another credential and another model have their own budgets.
    await rl.admit(subject({ credential: 'key-2' }), 0);
    await rl.admit(subject({ modelId: 'img-2' }), 0);

    t.mock.timers.tick(2300);
    const again = await settleAll(3 * N, () => rl.admit(k, 0));
    assert.equal(again.admitted, N);
  });

  test('refusals count nothing: token refusals leave every request slot to later requests', async () => {
    const rl = new RateLimiter(limits({ windowSeconds: 2, text: { default: { L: { rpm: 3, tpm: 1000 } } } }));
    const k = subject({ credential: 'burst', modelId: 'chat', model: model('text', 'L') });
    await rl.admit(k, 900);
    // One after another: concurrent ones briefly hold the request slot they give back when tokens refuse.
    for (let i = 0; i < 10; i++) await assert.rejects(rl.admit(k, 300), (e) => rateLimitTypeOf(e) === 'TPM');
    assert.equal((await rl.status(k)).remainingRequests, 2);
    await rl.admit(k, 50);
    await rl.admit(k, 50);
    await assert.rejects(rl.admit(k, 0), (e) => rateLimitTypeOf(e) === 'RPM');
    assert.equal((await rl.peek(k))['x-ratelimit-remaining-tokens'], '0');
  });

  test('wallet users are reported as x-ratelimit-type user', async () => {
    const rl = new RateLimiter(limits({ windowSeconds: 2, image: { default: { rpm: 1 } } }));
    const k = subject({ credential: 'wallet', credentialKind: 'user' });
    await rl.admit(k, 0);
    await assert.rejects(rl.admit(k, 0), (e: ApiError) => e.headers?.['x-ratelimit-type'] === 'user');
  });

  test('success headers: the request trio, plus the token trio for text models', async () => {
    const rl = new RateLimiter(short);
    const img = await rl.admit(subject({ credential: 'h' }), 0);
    assert.deepEqual(Object.keys(img.headers).sort(), ['x-ratelimit-limit-requests', 'x-ratelimit-remaining-requests', 'x-ratelimit-reset-requests']);
    assert.equal(img.headers['x-ratelimit-remaining-requests'], String(N - 1));

    const text = await rl.admit(subject({ credential: 'h', modelId: 'chat', model: model('text', 'L') }), 300);
    assert.equal(text.headers['x-ratelimit-limit-requests'], '100');
    assert.equal(text.headers['x-ratelimit-remaining-requests'], '99');
    assert.equal(text.headers['x-ratelimit-limit-tokens'], '1000');
    assert.equal(text.headers['x-ratelimit-remaining-tokens'], '700');
    const resetTokens = Number(text.headers['x-ratelimit-reset-tokens']);
    assert.ok(resetTokens >= 1 && resetTokens <= 2, `reset-tokens ${resetTokens}`);
  });

  test('TPM: a reservation that would exceed the budget is refused and costs nothing; finish returns unused tokens', async () => {
    const rl = new RateLimiter(short);
    const k = subject({ credential: 'tok', modelId: 'chat', model: model('text', 'L') });
    const a = await rl.admit(k, 800);

    await assert.rejects(rl.admit(k, 300), (e: ApiError) => {
      assert.equal(e.status, 429);
      assert.equal(rateLimitTypeOf(e), 'TPM');
      assert.match(e.message, /^Rate limit exceeded: 1000 tokens per 2 seconds for model chat \(this request reserves 300\)$/);
      assert.equal(e.headers?.['x-ratelimit-remaining-tokens'], '200');
      assert.equal(e.headers?.['x-ratelimit-limit-tokens'], '1000');
      // The request slot taken before the token check was given back.
      assert.equal(e.headers?.['x-ratelimit-remaining-requests'], '99');
      assert.ok(Number(e.headers?.['retry-after']) >= 1);
      return true;
    });
    let s = await rl.status(k);
    assert.equal(s.remainingRequests, 99, 'the refused request holds no request slot');
    assert.equal(s.remainingTokens, 200, 'the refused reservation holds no tokens');

    await a.finish(100); // 700 of the 800 reserved come back
    await a.finish(0); // only the first call counts
    s = await rl.status(k);
    assert.equal(s.remainingTokens, 900);
    const b = await rl.admit(k, 300);
    assert.equal(b.headers['x-ratelimit-remaining-tokens'], '600');

    // Using more than reserved charges the difference.
    await b.finish(500);
    assert.equal((await rl.status(k)).remainingTokens, 400);
  });

  test('finish after the window has rolled over gives nothing to the new window', async (t) => {
    t.mock.timers.enable({ apis: ['Date'], now: Date.now() });
    const rl = new RateLimiter(limits({ windowSeconds: 1, text: { default: { L: { rpm: 100, tpm: 1000 } } } }));
    const k = subject({ credential: 'late', modelId: 'chat', model: model('text', 'L') });
    const a = await rl.admit(k, 900);
    t.mock.timers.tick(1200);
    await a.finish(0);
    assert.equal((await rl.status(k)).remainingTokens, 1000);
    await assert.rejects(rl.admit(k, 1001), (e) => rateLimitTypeOf(e) === 'TPM');
  });

  test('RPD: a daily figure is enforced alongside RPM and reported; refusals give the RPM slot back', async () => {
    const rl = new RateLimiter(limits({ windowSeconds: 1, daySeconds: 60, embedding: { default: { rpm: 10, rpd: 3 } } }));
    const k = subject({ credential: 'daily', modelId: 'emb', model: model('embedding') });
    for (let i = 0; i < 3; i++) await rl.admit(k, 0);
    await assert.rejects(rl.admit(k, 0), (e: ApiError) => {
      assert.equal(rateLimitTypeOf(e), 'RPD');
      assert.equal(e.message, 'Rate limit exceeded: 3 requests per 60 seconds for model emb');
      const retry = Number(e.headers?.['retry-after']);
      assert.ok(retry > 50 && retry <= 60, `retry-after ${retry}`);
      return true;
    });
    const s = await rl.status(k);
    assert.equal(s.rpd, 3);
    assert.equal(s.remainingRequests, 7);
  });

  test('classOf: default and partner figures per type and tier', () => {
    const rl = new RateLimiter(DEFAULT_LIMITS);
    const text = (tier: 'XS' | 'S' | 'M' | 'L', t: 'default' | 'partner') => rl.classOf(model('text', tier), t);
    assert.deepEqual(text('XS', 'default'), { rpm: 500, tpm: 1_000_000 });
    assert.deepEqual(text('S', 'default'), { rpm: 75, tpm: 750_000 });
    assert.deepEqual(text('M', 'default'), { rpm: 50, tpm: 750_000 });
    assert.deepEqual(text('L', 'default'), { rpm: 20, tpm: 500_000 });
    assert.deepEqual(text('XS', 'partner'), { rpm: 500, tpm: 2_000_000 });
    assert.deepEqual(text('S', 'partner'), { rpm: 150, tpm: 1_500_000 });
    assert.deepEqual(text('M', 'partner'), { rpm: 100, tpm: 1_500_000 });
    assert.deepEqual(text('L', 'partner'), { rpm: 60, tpm: 1_000_000 });

    assert.deepEqual(rl.classOf(model('image'), 'default'), { rpm: 20 });
    assert.deepEqual(rl.classOf(model('image'), 'partner'), { rpm: 60 });
    for (const audio of ['tts', 'asr'] as const) {
      assert.deepEqual(rl.classOf(model(audio), 'default'), { rpm: 60 });
      assert.deepEqual(rl.classOf(model(audio), 'partner'), { rpm: 120 });
    }
    assert.deepEqual(rl.classOf(model('embedding'), 'default'), { rpm: 500 });
    assert.deepEqual(rl.classOf(model('embedding'), 'partner'), { rpm: 500 });
    assert.deepEqual(rl.classOf(model('video'), 'default'), { rpm: 40 });
    assert.deepEqual(rl.classOf('api', 'default'), { rpm: 120 });
    assert.deepEqual(rl.classOf('api', 'partner'), { rpm: 120 });
  });

  test('partner tier admits the raised figure', async () => {
    const rl = new RateLimiter(limits({ windowSeconds: 2 }));
    const img = model('image');
    const partner = await settleAll(90, () => rl.admit(subject({ credential: 'p', model: img, tier: 'partner' }), 0));
    assert.equal(partner.admitted, 60);
    const normal = await settleAll(90, () => rl.admit(subject({ credential: 'd', model: img }), 0));
    assert.equal(normal.admitted, 20);
  });

  test('the management API is one budget per credential, whatever the endpoint', async () => {
    const rl = new RateLimiter(limits({ windowSeconds: 2, api: { default: { rpm: 3 } } }));
    await rl.admit({ credential: 'adm', modelId: 'endpoint:api/v1/api_keys', model: 'api', tier: 'default' }, 0);
    await rl.admit({ credential: 'adm', modelId: 'endpoint:api/v1/billing/usage', model: 'api', tier: 'default' }, 0);
    await rl.admit({ credential: 'adm', modelId: 'endpoint:api/v1/api_keys/rate_limits', model: 'api', tier: 'default' }, 0);
    await assert.rejects(rl.admit({ credential: 'adm', modelId: 'endpoint:api/v1/api_keys', model: 'api', tier: 'default' }, 0), (e: ApiError) => {
      assert.equal(e.message, 'Rate limit exceeded: 3 requests per 2 seconds for the management API');
      return true;
    });
  });

  test('peek and status report without consuming; absent figures are absent', async () => {
    const rl = new RateLimiter(limits({ windowSeconds: 2 }));
    const k = subject({ credential: 'peek', modelId: 'chat', model: model('text', 'M') });
    const before = await rl.status(k);
    assert.deepEqual(Object.keys(before).sort(), ['remainingRequests', 'remainingTokens', 'resetRequestsAt', 'rpm', 'tpm']);
    assert.equal(before.remainingRequests, 50);
    assert.equal(before.remainingTokens, 750_000);
    const nowS = Date.now() / 1000;
    assert.ok(before.resetRequestsAt >= nowS && before.resetRequestsAt <= nowS + 3);

    await rl.admit(k, 1000);
    const h1 = await rl.peek(k);
    const h2 = await rl.peek(k);
    assert.equal(h1['x-ratelimit-remaining-requests'], '49');
    assert.equal(h2['x-ratelimit-remaining-requests'], '49');
    assert.equal(h2['x-ratelimit-remaining-tokens'], '749000');
    assert.equal(h2['x-ratelimit-limit-tokens'], '750000');

    const img = await rl.status(subject({ credential: 'peek' }));
    assert.deepEqual(Object.keys(img).sort(), ['remainingRequests', 'resetRequestsAt', 'rpm']);
  });
});
