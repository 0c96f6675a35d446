// Fixed-window counters from rate-limiter-flexible: in process memory, or in Redis with an in-memory insurance
// limiter (fail-open, see redis.ts). This file adds only what the library leaves to its callers: telling a refusal
// from a failure, and giving points back without ever leaving a counter below zero.
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Redis } from 'ioredis';

export type Counter = RateLimiterAbstract;

export interface CounterOptions {
  redis?: Redis;
  /** Namespace of this counter's keys (in Redis, the key prefix shared by every instance). */
  keyPrefix: string;
  points: number;
  durationSeconds: number;
  /** Once the limit is crossed, keep refusing for this long (the library's blockDuration). */
  blockSeconds?: number;
}

export function makeCounter(o: CounterOptions): Counter {
  const base = { keyPrefix: o.keyPrefix, points: o.points, duration: o.durationSeconds, blockDuration: o.blockSeconds ?? 0 };
  if (!o.redis) return new RateLimiterMemory(base);
  return new RateLimiterRedis({
    ...base,
    storeClient: o.redis,
    // Not connected: go straight to the insurance limiter rather than failing the request.
    rejectIfRedisNotReady: true,
    insuranceLimiter: new RateLimiterMemory(base),
  });
}

/** The library rejects with a RateLimiterRes when the limit refuses, and with an Error when the store fails. */
export const isRefusal = (e: unknown): e is RateLimiterRes => e instanceof RateLimiterRes;

export type Outcome = { ok: true; res: RateLimiterRes } | { ok: false; res: RateLimiterRes };

/** Consumes points; a refusal is a value, any other failure is thrown. */
export async function consume(counter: Counter, key: string, points: number): Promise<Outcome> {
  try {
    return { ok: true, res: await counter.consume(key, points) };
  } catch (e) {
    if (isRefusal(e)) return { ok: false, res: e };
    throw e;
  }
}

/**
 * Gives points back. The library applies a reward to a window that has already expired as a negative count in a
 * new window, which would grant that window extra capacity; a negative result is therefore corrected at once.
 */
export async function refund(counter: Counter, key: string, points: number): Promise<RateLimiterRes | undefined> {
  if (points <= 0) return undefined;
  const res = await counter.reward(key, points);
  if (res.consumedPoints < 0) await counter.penalty(key, -res.consumedPoints);
  return res;
}

/** The current window's state without consuming; undefined when nothing has been counted in it. */
export async function current(counter: Counter, key: string): Promise<RateLimiterRes | undefined> {
  const res = await counter.get(key);
  // The in-memory store can report an expired record for a moment before its timer removes it.
  if (!res || res.msBeforeNext <= 0) return undefined;
  return res;
}
