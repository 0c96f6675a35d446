// The abuse block (spec "Limits"): more than maxFailures failed responses within windowSeconds block the caller
// for blockSeconds. The counting and the block are a fixed-window counter's (points + blockDuration, counters.ts),
// in memory or in Redis with the same fail-open insurance as the rate limits.
import type { Redis } from 'ioredis';
import { ApiError } from '../api/errors.ts';
import type { AbuseConfig } from './config.ts';
import { consume, current, makeCounter, type Counter } from './counters.ts';
import { secondsUntil } from './headers.ts';

/**
 * Which responses count as failures: the client's own, 400 to 499, except 429. The block's own refusals and
 * rate-limit refusals are 429; counting them would let a blocked client extend its block just by retrying, and
 * would turn ordinary rate-limit pressure into an abuse block. A 5xx is the server's failure (an engine down, an
 * upstream timeout): counting it would block a busy key on every model during an outage.
 */
export const countsAsFailure = (status: number): boolean => status >= 400 && status < 500 && status !== 429;

export class AbuseGuard {
  private readonly config: AbuseConfig;
  private readonly counter: Counter;

  constructor(config: AbuseConfig, opts: { redis?: Redis; keyPrefix?: string } = {}) {
    this.config = config;
    this.counter = makeCounter({
      redis: opts.redis,
      keyPrefix: `${opts.keyPrefix ?? 'lagoon:rl'}:abuse`,
      points: config.maxFailures,
      durationSeconds: config.windowSeconds,
      blockSeconds: config.blockSeconds,
    });
  }

  /** Throws 429 TOO_MANY_FAILED_ATTEMPTS, with retry-after, while id is blocked. */
  async check(id: string): Promise<void> {
    // In memory the answer is immediate: most requests are checked without waiting on anything.
    const c = current(this.counter, id);
    const res = c instanceof Promise ? await c : c;
    if (!res || res.consumedPoints <= this.config.maxFailures) return;
    const { maxFailures, blockSeconds } = this.config;
    throw new ApiError(
      'TOO_MANY_FAILED_ATTEMPTS',
      `Too many failed attempts (> ${maxFailures}) resulting in a non-success status code. Please wait ${blockSeconds}s and try again.`,
      undefined,
      { 'retry-after': String(secondsUntil(res.msBeforeNext)) },
    );
  }

  /** Counts a response; true when this failure is the one that started a block (log FAILED_REQUESTS once). */
  async record(id: string, status: number): Promise<boolean> {
    if (!countsAsFailure(status)) return false;
    const p = consume(this.counter, id, 1);
    const o = p instanceof Promise ? await p : p;
    // Failures that were already in flight when the block began count on without extending it.
    return !o.ok && o.res.consumedPoints === this.config.maxFailures + 1;
  }
}
