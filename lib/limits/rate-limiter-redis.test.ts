// RateLimiter over Redis: limits shared exactly between instances and between OS processes, and the fail-open
// fallback to per-instance counting when Redis cannot be reached.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import type { ApiError } from '../api/errors.ts';
import { RateLimiter, rateLimitTypeOf, type LimitSubject } from './rate-limiter.ts';
import { closeRedis, connectRedis, type Redis } from './redis.ts';
import { limits, model, uniquePrefix } from '../../e2e/support/limits/models.ts';
import { deleteKeys, TEST_REDIS_URL } from '../../e2e/support/limits/redis-keys.ts';

const N = 5;
const img = model('image');
const subject = (credential: string): LimitSubject => ({ credential, modelId: 'img', model: img, tier: 'default' });
const config = limits({ windowSeconds: 2, image: { default: { rpm: N } }, text: { default: { L: { rpm: 100, tpm: 1000 } } } });

async function admitted(n: number, fn: (i: number) => Promise<unknown>): Promise<number> {
  const results = await Promise.allSettled(Array.from({ length: n }, (_, i) => fn(i)));
  for (const r of results) if (r.status === 'rejected') assert.equal((r.reason as ApiError).status, 429, String(r.reason));
  return results.filter((r) => r.status === 'fulfilled').length;
}

describe('RateLimiter (Redis)', () => {
  const prefix = uniquePrefix('rl');
  let a: Redis;
  let b: Redis;

  before(async () => {
    a = await connectRedis(TEST_REDIS_URL);
    b = await connectRedis(TEST_REDIS_URL);
    assert.equal(a.status, 'ready', `Redis at ${TEST_REDIS_URL} must be running for these tests`);
  });
  after(async () => {
    const left = await deleteKeys(a, prefix);
    assert.ok(left >= 0);
    assert.deepEqual(await a.keys(`${prefix}*`), []);
    await closeRedis(a);
    await closeRedis(b);
  });

  test('two instances on one Redis: of 3N concurrent admits exactly N pass; the window resets', async () => {
    const one = new RateLimiter(config, { redis: a, keyPrefix: prefix });
    const two = new RateLimiter(config, { redis: b, keyPrefix: prefix });
    const k = subject('pair');
    assert.equal(await admitted(3 * N, (i) => (i % 2 ? one : two).admit(k, 0)), N);

    await assert.rejects(one.admit(k, 0), (e: ApiError) => {
      assert.equal(e.status, 429);
      assert.equal(rateLimitTypeOf(e), 'RPM');
      const retry = Number(e.headers?.['retry-after']);
      assert.ok(Number.isInteger(retry) && retry >= 1 && retry <= 2, `retry-after ${retry}`);
      assert.equal(e.headers?.['x-ratelimit-remaining-requests'], '0');
      return true;
    });
    assert.equal((await two.status(k)).remainingRequests, 0);

    await sleep(2300);
    assert.equal(await admitted(3 * N, (i) => (i % 2 ? one : two).admit(k, 0)), N);
  });

  test('tokens are shared: a reservation one instance holds refuses the other; finish returns it', async () => {
    const one = new RateLimiter(config, { redis: a, keyPrefix: prefix });
    const two = new RateLimiter(config, { redis: b, keyPrefix: prefix });
    const k: LimitSubject = { credential: 'tokens', modelId: 'chat', model: model('text', 'L'), tier: 'default' };
    const held = await one.admit(k, 800);
    await assert.rejects(two.admit(k, 300), (e) => rateLimitTypeOf(e) === 'TPM');
    assert.deepEqual({ requests: (await two.status(k)).remainingRequests, tokens: (await two.status(k)).remainingTokens }, { requests: 99, tokens: 200 });
    await held.finish(100);
    const next = await two.admit(k, 300);
    assert.equal(next.headers['x-ratelimit-remaining-tokens'], '600');
  });

  test('two OS processes sharing one prefix admit exactly N between them', { timeout: 30_000 }, async () => {
    const worker = path.join(import.meta.dirname, '../../e2e/support/limits/admit-worker.ts');
    const shared = `${prefix}:procs`;
    const children = [0, 1].map(() =>
      spawn(process.execPath, [worker, TEST_REDIS_URL, shared, String(N), String(Math.ceil((3 * N) / 2))], {
        stdio: ['pipe', 'pipe', 'inherit'],
      }),
    );
    const lines = children.map((c) => {
      const queue: string[] = [];
      let buf = '';
      let wake: (() => void) | undefined;
      c.stdout.on('data', (d: Buffer) => {
        buf += d.toString();
        let i;
        while ((i = buf.indexOf('\n')) >= 0) {
          queue.push(buf.slice(0, i));
          buf = buf.slice(i + 1);
        }
        wake?.();
      });
      return async (): Promise<string> => {
        while (!queue.length) await new Promise<void>((r) => (wake = r));
        return queue.shift() as string;
      };
    });
    const exits = children.map((c) => new Promise<number | null>((r) => c.on('close', r)));
    let reports: { admitted: number; refusedOther: number }[];
    try {
      assert.deepEqual(await Promise.all(lines.map((next) => next())), ['ready', 'ready']);
      for (const c of children) c.stdin.end('go\n');
      reports = (await Promise.all(lines.map((next) => next()))).map((l) => JSON.parse(l) as { admitted: number; refusedOther: number });
      assert.deepEqual(await Promise.all(exits), [0, 0]);
    } finally {
      for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill();
    }

    assert.equal(reports[0].admitted + reports[1].admitted, N, JSON.stringify(reports));
    assert.equal(reports[0].refusedOther + reports[1].refusedOther, 0);
  });

  test('Redis unreachable: a warning, then each instance limits on its own (fail open)', async () => {
    const port = await closedPort();
    const warnings: string[] = [];
    const dead = await connectRedis(`redis://127.0.0.1:${port}`, { readyTimeoutMs: 300, warn: (m) => warnings.push(m) });
    try {
      assert.notEqual(dead.status, 'ready');
      assert.equal(warnings.length, 1, warnings.join('\n'));
      assert.match(warnings[0], /Redis unavailable|not ready/);
      const rl = new RateLimiter(config, { redis: dead, keyPrefix: prefix });
      const k = subject('offline');
      const started = Date.now();
      assert.equal(await admitted(3 * N, () => rl.admit(k, 0)), N);
      assert.ok(Date.now() - started < 1000, 'the fallback is immediate, not after command timeouts');
    } finally {
      await closeRedis(dead);
    }
  });
});

/** A local port with nothing listening on it. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}
