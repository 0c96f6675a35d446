// Rate limits by model tier, the abuse block and the rate-limit endpoints, through the real HTTP API: on the
// embedded store with in-process counters, and on PostgreSQL with counters in Redis.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { setAccountTier } from '../../lib/accounts/accounts.ts';
import { type Harness, get, post, scriptedModel, startHarness } from '../support/harness.ts';
import { createTestDatabase } from '../support/pg.ts';
import { createSession, SESSION_COOKIE } from '../../lib/users/sessions.ts';
import { signUp } from '../../lib/users/users.ts';

// "A minute" is 2 s here; model L allows 4 requests, S 6, and 300 tokens per window.
const WINDOW = 2;
const LIMITS = {
  windowSeconds: WINDOW,
  text: {
    default: { L: { rpm: 4, tpm: 100_000 }, S: { rpm: 6, tpm: 300 } },
    partner: { L: { rpm: 9, tpm: 100_000 } },
  },
};
const models = (url: string) => [scriptedModel('large', url, { tier: 'L' }), scriptedModel('small', url, { tier: 'S' })];

const backends = [
  { name: 'embedded store, in-process counters', pg: false, redis: false },
  { name: 'PostgreSQL, counters in Redis', pg: true, redis: true },
];

for (const backend of backends) {
  describe(`rate limits (${backend.name})`, () => {
    let h: Harness;
    let drop: (() => Promise<void>) | undefined;
    before(async () => {
      let databaseUrl: string | undefined;
      if (backend.pg) ({ url: databaseUrl, drop } = await createTestDatabase());
      const env: Record<string, string> = backend.redis ? { REDIS_URL: 'redis://127.0.0.1:6379', LAGOON_REDIS_PREFIX: `lagoon-test-${randomUUID()}` } : {};
      h = await startHarness({ databaseUrl, env, models, limits: LIMITS });
    });
    after(async () => {
      await h.close();
      await drop?.();
    });

    const chat = (key: string, model = 'large', content = 'hi', extra: Record<string, unknown> = {}) =>
      post(h, '/chat/completions', key, { model, max_tokens: 10, messages: [{ role: 'user', content }], ...extra });

    test('every authenticated response carries the x-ratelimit headers', async () => {
      const { key } = await h.newAccount({ keyType: 'ADMIN' });
      const r = await chat(key);
      assert.equal(r.status, 200);
      assert.equal(r.headers.get('x-ratelimit-limit-requests'), '4');
      assert.equal(r.headers.get('x-ratelimit-remaining-requests'), '3');
      assert.ok(Number(r.headers.get('x-ratelimit-reset-requests')) >= Math.floor(Date.now() / 1000));
      assert.equal(r.headers.get('x-ratelimit-limit-tokens'), '100000');
      assert.ok(Number(r.headers.get('x-ratelimit-remaining-tokens')) < 100_000);
      assert.ok(Number(r.headers.get('x-ratelimit-reset-tokens')) >= 1);
      const mgmt = await get(h, '/api_keys', key);
      assert.equal(mgmt.status, 200);
      assert.equal(mgmt.headers.get('x-ratelimit-limit-requests'), '120');
      assert.ok(mgmt.headers.get('x-ratelimit-reset-requests'));
      // A failure after admission carries them too.
      const failed = await chat(key, 'large', '[[status:500]]');
      assert.equal(failed.status, 500);
      assert.equal(failed.headers.get('x-ratelimit-remaining-requests'), '2');
    });

    test('3N concurrent requests against a limit of N: exactly N are admitted, the rest get 429', async () => {
      const { key } = await h.newAccount();
      const results = await Promise.all(Array.from({ length: 12 }, () => chat(key)));
      assert.equal(results.filter((r) => r.status === 200).length, 4, results.map((r) => r.status).join(','));
      const refused = results.filter((r) => r.status === 429);
      assert.equal(refused.length, 8);
      const r = refused[0];
      assert.equal(r.json.code, 'RATE_LIMIT_EXCEEDED');
      assert.match(r.json.error, /4 requests per/);
      assert.equal(r.headers.get('x-ratelimit-type'), 'api_key');
      assert.ok(Number(r.headers.get('retry-after')) >= 1);
      assert.equal(r.headers.get('x-ratelimit-remaining-requests'), '0');
    });

    test('limits are per credential and per model', async () => {
      const a = await h.newAccount();
      const b = await h.newAccount();
      for (let i = 0; i < 4; i++) assert.equal((await chat(a.key)).status, 200);
      assert.equal((await chat(a.key)).status, 429);
      assert.equal((await chat(b.key)).status, 200, 'another key has its own budget');
      assert.equal((await chat(a.key, 'small')).status, 200, 'another model has its own budget');
    });

    test('tokens per minute: the estimate is reserved at admission and corrected when the request ends', async () => {
      const { key } = await h.newAccount();
      // max_tokens 200 + the prompt estimate fits once in 300 tokens, not twice at the same time...
      const [one, two] = await Promise.all([
        chat(key, 'small', '[[delay:300]] [[tokens:3]]', { max_tokens: 200 }),
        chat(key, 'small', '[[delay:300]] [[tokens:3]]', { max_tokens: 200 }),
      ]);
      assert.deepEqual([one.status, two.status].sort(), [200, 429]);
      const refused = one.status === 429 ? one : two;
      assert.match(refused.json.error, /tokens per/);
      // ...but the first used only a few of them, so the correction frees room for another.
      assert.equal((await chat(key, 'small', '[[tokens:3]]', { max_tokens: 200 })).status, 200);
    });

    test('the partner tier gets the raised figures', async () => {
      const { key, accountId } = await h.newAccount();
      await setAccountTier(h.svc.store, accountId, 'partner');
      const { forgetPrincipals } = await import('../../lib/auth/keys.ts');
      forgetPrincipals(h.svc.store);
      const results = await Promise.all(Array.from({ length: 12 }, () => chat(key)));
      assert.equal(results.filter((r) => r.status === 200).length, 9);
    });

    test('the openai client receives a 429 and succeeds after the reset time', async () => {
      const { key } = await h.newAccount();
      for (let i = 0; i < 4; i++) await chat(key);
      const strict = new OpenAI({ apiKey: key, baseURL: h.base, maxRetries: 0 });
      await assert.rejects(
        strict.chat.completions.create({ model: 'large', messages: [{ role: 'user', content: 'x' }] }),
        (e: unknown) => e instanceof OpenAI.RateLimitError,
      );
      const patient = new OpenAI({ apiKey: key, baseURL: h.base, maxRetries: 3 });
      const started = Date.now();
      const r = await patient.chat.completions.create({ model: 'large', messages: [{ role: 'user', content: 'x' }] });
      assert.equal(r.choices[0].message.content, 'Hello from the scripted engine.');
      assert.ok(Date.now() - started < 4 * WINDOW * 1000);
    });

    test('GET /api_keys/rate_limits reports the calling key’s status (either key type)', async () => {
      const { key } = await h.newAccount({ usd: 3 });
      const r = await get(h, '/api_keys/rate_limits', key);
      assert.equal(r.status, 200);
      const d = r.json.data;
      assert.equal(d.accessPermitted, true);
      assert.deepEqual(d.apiTier, { id: 'default', isCharged: true });
      assert.equal(d.balances.USD, 3);
      assert.equal(d.keyExpiration, null);
      assert.ok(Date.parse(d.nextEpochBegins) > Date.now());
      const large = d.rateLimits.find((m: any) => m.apiModelId === 'large');
      assert.deepEqual(large.rateLimits, [
        { type: 'RPM', amount: 4 },
        { type: 'TPM', amount: 100_000 },
      ]);
      const broke = await h.newAccount({ usd: 0 });
      assert.equal((await get(h, '/api_keys/rate_limits', broke.key)).json.data.accessPermitted, false);
    });

    test('GET /api_keys/rate_limits/log lists the account’s breaches, newest first (ADMIN only)', async () => {
      const { key, accountId } = await h.newAccount({ keyType: 'ADMIN' });
      for (let i = 0; i < 6; i++) await chat(key);
      await new Promise((r) => setTimeout(r, 100)); // breaches are logged off the request path
      const log = await get(h, '/api_keys/rate_limits/log', key);
      assert.equal(log.status, 200);
      assert.equal(log.json.object, 'list');
      assert.equal(log.json.data.length, 2);
      assert.deepEqual(Object.keys(log.json.data[0]).sort(), ['apiKeyId', 'modelId', 'rateLimitTier', 'rateLimitType', 'timestamp']);
      assert.equal(log.json.data[0].modelId, 'large');
      assert.equal(log.json.data[0].rateLimitType, 'RPM');
      assert.ok(log.json.data[0].timestamp >= log.json.data[1].timestamp);
      const inference = await h.newAccount();
      const denied = await get(h, '/api_keys/rate_limits/log', inference.key);
      assert.equal(denied.status, 401);
      assert.equal(denied.json.error, 'Admin API key required');
      void accountId;
    });
  });
}

describe('the abuse block', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ models, limits: { abuse: { maxFailures: 20, windowSeconds: 30, blockSeconds: 2 } } });
  });
  after(() => h.close());

  test('more than 20 failures in 30 s block the key for the block time, with the spec’s message, logged as FAILED_REQUESTS', async () => {
    const { key } = await h.newAccount({ keyType: 'ADMIN' });
    const bad = () => post(h, '/chat/completions', key, { model: 'no-such-model', messages: [{ role: 'user', content: 'x' }] });
    for (let i = 0; i < 21; i++) assert.equal((await bad()).status, 404);
    await new Promise((r) => setTimeout(r, 100));
    const blocked = await post(h, '/chat/completions', key, { model: 'large', messages: [{ role: 'user', content: 'x' }] });
    assert.equal(blocked.status, 429);
    assert.equal(blocked.json.code, 'TOO_MANY_FAILED_ATTEMPTS');
    assert.match(blocked.json.error, /Too many failed attempts \(> 20\).*wait 2s/);
    assert.ok(Number(blocked.headers.get('retry-after')) >= 1);
    const log = await get(h, '/api_keys/rate_limits/log', key);
    assert.equal(log.status, 429, 'management endpoints are blocked too');
    await new Promise((r) => setTimeout(r, 2200));
    assert.equal((await post(h, '/chat/completions', key, { model: 'large', messages: [{ role: 'user', content: 'x' }] })).status, 200);
    const after = await get(h, '/api_keys/rate_limits/log', key);
    assert.equal(after.json.data[0].rateLimitType, 'FAILED_REQUESTS');
  });

  test('20 failures do not block; unauthenticated failures count against the client IP', async () => {
    const { key } = await h.newAccount();
    for (let i = 0; i < 20; i++) await post(h, '/chat/completions', key, { model: 'no-such-model', messages: [{ role: 'user', content: 'x' }] });
    assert.equal((await post(h, '/chat/completions', key, { model: 'large', messages: [{ role: 'user', content: 'x' }] })).status, 200);
    for (let i = 0; i < 21; i++) assert.equal((await post(h, '/chat/completions', 'lgn_inf_wrong', {})).status, 401);
    await new Promise((r) => setTimeout(r, 100));
    const blocked = await post(h, '/chat/completions', 'lgn_inf_wrong', {});
    assert.equal(blocked.status, 429);
    assert.equal((await get(h, '/models')).status, 429, 'an unauthenticated caller from a blocked IP is refused outright');
    assert.equal(
      (await post(h, '/chat/completions', key, { model: 'large', messages: [{ role: 'user', content: 'x' }] })).status,
      200,
      'a valid key is judged on its own record',
    );
    await new Promise((r) => setTimeout(r, 2200));
  });
});

describe('the abuse block counts the client, never the server', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({
      models,
      app: true,
      limits: { abuse: { maxFailures: 20, windowSeconds: 30, blockSeconds: 30 }, text: { default: { S: { rpm: 1000 } } } },
    });
  });
  after(() => h.close());

  test("an address's anonymous failures block the address, not a signed-in browser session from it", async () => {
    const { user } = await signUp(h.svc.store, { email: 'behind-nat@example.com', password: 'correct horse battery' });
    const { token } = await createSession(h.svc.store, user.id);
    const cookie = `${SESSION_COOKIE}=${token}`;
    for (let i = 0; i < 21; i++) assert.equal((await fetch(`${h.base}/no-such-route`)).status, 404);
    await new Promise((r) => setTimeout(r, 100));
    assert.equal((await get(h, '/models')).status, 429, 'the anonymous address is blocked');
    const me = await fetch(`${h.origin}/api/app/auth/me`, { headers: { cookie } });
    assert.equal(me.status, 200, 'the session behind the same address is judged on its own record');
    // A cookie naming no session is anonymous again, and blocked with its address.
    assert.equal((await fetch(`${h.origin}/api/app/auth/me`, { headers: { cookie: `${SESSION_COOKIE}=forged` } })).status, 429);
  });

  test("the server's own failures (an upstream's 503) never count against the key", async () => {
    const { key } = await h.newAccount();
    for (let i = 0; i < 25; i++) {
      const r = await post(h, '/chat/completions', key, { model: 'small', messages: [{ role: 'user', content: '[[status:503]] hi' }] });
      assert.ok(r.status >= 500, `${r.status} ${r.text}`);
    }
    await new Promise((r) => setTimeout(r, 100));
    const ok = await post(h, '/chat/completions', key, { model: 'small', messages: [{ role: 'user', content: 'x' }] });
    assert.equal(ok.status, 200, ok.text);
  });
});
