// Per-caller caps of the JSON-RPC proxy, in memory and shared through Redis: requests per minute, credits per 24 h
// (the worst case reserved, then corrected), refusals that cost nothing, and the 429 that names its cap.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { closeRedis, connectRedis, type Redis } from '../limits/redis.ts';
import { RpcLimiter } from './limits.ts';

const refusedBy = (type: string) => (e: any) => e.status === 429 && e.extra?.type === type && typeof e.extra?.customMessage === 'string';

describe('RPC limits in memory', () => {
  test('requests per minute: the next one is a 429 naming the cap, with retry-after and the usual headers', async () => {
    const l = new RpcLimiter({ requestsPerMinute: 2, creditsPerDay: 1000 }, { keyPrefix: 't' });
    const a = await l.admit('k1', 20);
    assert.equal(a.headers['x-ratelimit-remaining-requests'], '1');
    assert.equal(a.headers['x-ratelimit-remaining-credits'], '980');
    await l.admit('k1', 20);
    await assert.rejects(l.admit('k1', 20), (e: any) => {
      assert.ok(refusedBy('RPM')(e));
      assert.match(e.message, /2 JSON-RPC requests per minute/);
      assert.ok(Number(e.headers['retry-after']) >= 1);
      assert.equal(e.headers['x-ratelimit-remaining'], '0');
      assert.equal(e.headers['x-ratelimit-limit'], '2');
      return true;
    });
    await l.admit('k2', 20); // another caller has its own budget
  });

  test('credits per 24 h: the worst case is reserved, corrected after, and a refusal costs neither cap', async () => {
    const l = new RpcLimiter({ requestsPerMinute: 100, creditsPerDay: 100 }, { keyPrefix: 't' });
    const a = await l.admit('k', 80);
    a.finish(20); // the batch turned out to be errors: 20 credits
    const b = await l.admit('k', 80);
    assert.equal(b.headers['x-ratelimit-remaining-credits'], '0');
    b.finish(80);
    await assert.rejects(l.admit('k', 5), (e: any) => {
      assert.ok(refusedBy('CREDITS')(e));
      assert.match(e.message, /100 JSON-RPC credits per rolling 24 hours \(100 used; this request may cost 5\)/);
      assert.ok(Number(e.headers['retry-after']) >= 1 && Number(e.headers['retry-after']) <= 86_400);
      return true;
    });
    const c = new RpcLimiter({ requestsPerMinute: 100, creditsPerDay: 100 }, { keyPrefix: 't' });
    await assert.rejects(c.admit('k', 101), (e: any) => refusedBy('CREDITS')(e) && /more than the cap/.test(e.message));
    // A refused request did not take a request slot: 100 more fit the minute.
    const d = await c.admit('k', 1);
    assert.equal(d.headers['x-ratelimit-remaining-requests'], '99');
    d.finish(0);
    d.finish(50); // only the first finish counts
    assert.equal((await c.admit('k', 100)).headers['x-ratelimit-remaining-credits'], '0');
  });
});

describe('RPC limits shared through Redis', () => {
  let redis: Redis;
  const prefix = `lagoon-test-${randomUUID()}`;
  before(async () => {
    redis = await connectRedis('redis://127.0.0.1:6379', { readyTimeoutMs: 2000 });
  });
  after(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    await closeRedis(redis);
  });

  test('two instances count one budget of requests and credits per caller', async () => {
    const one = new RpcLimiter({ requestsPerMinute: 3, creditsPerDay: 100 }, { redis, keyPrefix: prefix });
    const two = new RpcLimiter({ requestsPerMinute: 3, creditsPerDay: 100 }, { redis, keyPrefix: prefix });
    (await one.admit('k', 60)).finish(60);
    const b = await two.admit('k', 40);
    assert.equal(b.headers['x-ratelimit-remaining-credits'], '0');
    b.finish(10); // corrected: 70 used
    await assert.rejects(one.admit('k', 31), refusedBy('CREDITS'));
    (await two.admit('k', 30)).finish(30);
    await assert.rejects(one.admit('k', 1), refusedBy('RPM'));
    await assert.rejects(two.admit('other', 101), refusedBy('CREDITS'));
  });
});
