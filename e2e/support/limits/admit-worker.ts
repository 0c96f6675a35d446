// A second OS process for the cross-process test: connects to Redis, says "ready", waits for "go" on stdin so
// every process fires at once, makes `count` concurrent admits of one image model, and prints how many passed.
// Usage: node admit-worker.ts <redisUrl> <keyPrefix> <limit> <count>
import { RateLimiter } from '../../../lib/limits/rate-limiter.ts';
import { closeRedis, connectRedis } from '../../../lib/limits/redis.ts';
import { limits, model } from './models.ts';

const [url, keyPrefix, limit, count] = process.argv.slice(2);
const redis = await connectRedis(url, { readyTimeoutMs: 5_000 });
if (redis.status !== 'ready') throw new Error(`Redis at ${url} is not ready`);
const rl = new RateLimiter(limits({ windowSeconds: 30, image: { default: { rpm: Number(limit) } } }), { redis, keyPrefix });
const subject = { credential: 'shared-key', modelId: 'img', model: model('image'), tier: 'default' as const };

process.stdout.write('ready\n');
await new Promise<void>((resolve) => {
  process.stdin.once('data', () => resolve());
  // The test went away without saying "go": nothing to do.
  process.stdin.once('end', () => process.exit(1));
});
// An open stdin would keep this process alive after its work.
process.stdin.destroy();
const results = await Promise.allSettled(Array.from({ length: Number(count) }, () => rl.admit(subject, 0)));
const admitted = results.filter((r) => r.status === 'fulfilled').length;
const refusedOther = results.filter((r) => r.status === 'rejected' && (r.reason as { status?: number }).status !== 429).length;
process.stdout.write(`${JSON.stringify({ admitted, refusedOther })}\n`);
await closeRedis(redis);
