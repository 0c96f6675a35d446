// Fixed-window counters: in process memory (memory-counter.ts, answered synchronously), or in Redis through
// rate-limiter-flexible with an in-memory insurance limiter (fail-open, see redis.ts). This file adds what the
// library leaves to its callers: telling a refusal from a failure, and giving points back without ever leaving a
// counter below zero.
//
// The helpers return a plain value for a memory counter and a promise for a Redis one: `await` works on both, and
// the request path skips the await (and its microtask) when there is nothing to wait for.
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Redis } from 'ioredis';
import { type CounterState, MemoryCounter, type Outcome } from './memory-counter.ts';

export type { CounterState, Outcome };

export type Counter = MemoryCounter | RateLimiterAbstract;

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
  if (!o.redis) return new MemoryCounter(o);
  const base = { keyPrefix: o.keyPrefix, points: o.points, duration: o.durationSeconds, blockDuration: o.blockSeconds ?? 0 };
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

/** Consumes points; a refusal is a value, any other failure is thrown. */
export function consume(counter: Counter, key: string, points: number): Outcome | Promise<Outcome> {
  if (counter instanceof MemoryCounter) return counter.consume(key, points);
  return consumeShared(counter, key, points);
}

async function consumeShared(counter: RateLimiterAbstract, key: string, points: number): Promise<Outcome> {
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
export function refund(counter: Counter, key: string, points: number): CounterState | undefined | Promise<CounterState | undefined> {
  if (points <= 0) return undefined;
  if (!(counter instanceof MemoryCounter)) return refundShared(counter, key, points);
  const res = counter.reward(key, points);
  if (res.consumedPoints < 0) counter.penalty(key, -res.consumedPoints);
  return res;
}

async function refundShared(counter: RateLimiterAbstract, key: string, points: number): Promise<CounterState> {
  const res = await counter.reward(key, points);
  if (res.consumedPoints < 0) await counter.penalty(key, -res.consumedPoints);
  return res;
}

/** The current window's state without consuming; undefined when nothing has been counted in it. */
export function current(counter: Counter, key: string): CounterState | undefined | Promise<CounterState | undefined> {
  if (counter instanceof MemoryCounter) return counter.get(key);
  return currentShared(counter, key);
}

async function currentShared(counter: RateLimiterAbstract, key: string): Promise<CounterState | undefined> {
  const res = await counter.get(key);
  // The in-memory insurance store can report an expired record for a moment before its timer removes it.
  if (!res || res.msBeforeNext <= 0) return undefined;
  return res;
}
