// AbuseGuard: more than maxFailures failures within the window block for blockSeconds; 429s never count.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { ApiError } from '../api/errors.ts';
import { AbuseGuard, countsAsFailure } from './abuse.ts';
import { DEFAULT_LIMITS } from './config.ts';
import { closeRedis, connectRedis, type Redis } from './redis.ts';
import { uniquePrefix } from '../../e2e/support/limits/models.ts';
import { deleteKeys, TEST_REDIS_URL } from '../../e2e/support/limits/redis-keys.ts';

const SPEC_MESSAGE = 'Too many failed attempts (> 20) resulting in a non-success status code. Please wait 30s and try again.';

async function fail(guard: AbuseGuard, id: string, times: number, status = 400): Promise<boolean[]> {
  const started: boolean[] = [];
  for (let i = 0; i < times; i++) started.push(await guard.record(id, status));
  return started;
}

function blocked(retryAtMost: number, message = SPEC_MESSAGE) {
  return (e: unknown) => {
    assert.ok(e instanceof ApiError);
    assert.equal(e.status, 429);
    assert.equal(e.code, 'TOO_MANY_FAILED_ATTEMPTS');
    assert.equal(e.message, message);
    const retry = Number(e.headers?.['retry-after']);
    assert.ok(Number.isInteger(retry) && retry >= 1 && retry <= retryAtMost, `retry-after ${e.headers?.['retry-after']}`);
    return true;
  };
}

test('which statuses count: 4xx and 5xx, never 429 or success', () => {
  assert.deepEqual([200, 204, 302, 399].map(countsAsFailure), [false, false, false, false]);
  assert.deepEqual([400, 401, 402, 404, 408, 413, 422].map(countsAsFailure), [true, true, true, true, true, true, true]);
  // The server's own failures (an engine down, an upstream timeout) are not the client's.
  assert.deepEqual([500, 502, 503, 504].map(countsAsFailure), [false, false, false, false]);
  assert.equal(countsAsFailure(429), false);
});

for (const backend of ['memory', 'redis'] as const) {
  describe(`AbuseGuard (${backend})`, () => {
    const prefix = uniquePrefix('abuse');
    let redis: Redis | undefined;

    before(async () => {
      if (backend === 'redis') redis = await connectRedis(TEST_REDIS_URL);
    });
    after(async () => {
      if (!redis) return;
      await deleteKeys(redis, prefix);
      assert.deepEqual(await redis.keys(`${prefix}*`), []);
      await closeRedis(redis);
    });

    test('20 failures do not block; the 21st does, once, with the spec message', async () => {
      const guard = new AbuseGuard(DEFAULT_LIMITS.abuse, { redis, keyPrefix: prefix });
      const started = await fail(guard, 'caller-a', 20);
      assert.ok(started.every((s) => !s));
      await guard.check('caller-a');

      assert.equal(await guard.record('caller-a', 422), true, 'the 21st failure starts the block');
      await assert.rejects(guard.check('caller-a'), blocked(30));
      // Failures already in flight count on, but start no second block.
      assert.deepEqual(await fail(guard, 'caller-a', 3), [false, false, false]);
      // Other callers are not affected.
      await guard.check('caller-b');
    });

    test('429 responses are not counted', async () => {
      const guard = new AbuseGuard(DEFAULT_LIMITS.abuse, { redis, keyPrefix: prefix });
      assert.ok((await fail(guard, 'limited', 50, 429)).every((s) => !s));
      await guard.check('limited');
      await fail(guard, 'limited', 20, 404);
      await guard.check('limited');
      assert.ok((await fail(guard, 'limited', 20, 200)).every((s) => !s));
      await guard.check('limited');
    });

    test('the block ends after blockSeconds, and failures before the window are forgotten', async () => {
      const guard = new AbuseGuard({ maxFailures: 3, windowSeconds: 1, blockSeconds: 3 }, { redis, keyPrefix: prefix });
      await fail(guard, 'short', 3);
      await sleep(1300);
      assert.deepEqual(await fail(guard, 'short', 3), [false, false, false], 'the first three expired with their window');
      assert.equal(await guard.record('short', 401), true);
      const message = 'Too many failed attempts (> 3) resulting in a non-success status code. Please wait 3s and try again.';
      await assert.rejects(guard.check('short'), blocked(3, message));
      await sleep(1500);
      await assert.rejects(guard.check('short'), blocked(2, message), 'still blocked past the 1 s window');
      await sleep(2000);
      await guard.check('short');
    });
  });
}
