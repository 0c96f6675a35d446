// Redis helpers for the limits tests: the server tests use, and removal of a test's keys.
import type { Redis } from 'ioredis';

export const TEST_REDIS_URL = process.env.LAGOON_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Deletes every key under prefix (tests only: KEYS scans the whole database). */
export async function deleteKeys(redis: Redis, prefix: string): Promise<number> {
  const keys = await redis.keys(`${prefix}*`);
  return keys.length ? redis.del(...keys) : 0;
}
