// Per-caller limits of the JSON-RPC proxy: requests per minute, and credits per rolling 24 hours. Both are shared by
// every instance through Redis when REDIS_URL is set (fail-open to per-instance counting while Redis is away, as the
// other rate limits do), in process memory otherwise.
//
// Requests are rate-limiter-flexible's fixed one-minute windows, like the other limits. Credits are summed over 96
// fifteen-minute buckets (a window sliding in 15-minute steps, so "24 hours" is 23 h 45 min to 24 h): the call's worst
// case is reserved atomically (a Lua script in Redis) before it is forwarded, and corrected to what it cost after. A
// refused call counts against neither cap.
import type { Redis } from 'ioredis';
import { ApiError } from '../api/errors.ts';
import { type Counter, consume, makeCounter, refund } from '../limits/counters.ts';
import { requestHeaders, secondsUntil } from '../limits/headers.ts';
import { log } from '../log.ts';

const BUCKET_MS = 15 * 60_000;
const BUCKETS = 96;
const TTL_MS = BUCKETS * BUCKET_MS + BUCKET_MS;

export interface RpcLimits {
  requestsPerMinute: number;
  creditsPerDay: number;
}

export interface RpcAdmission {
  /** x-ratelimit-* headers for the response. */
  headers: Record<string, string>;
  /** Corrects the credit reservation to what the call cost (0 when it was not forwarded); only the first call counts. */
  finish(actualCredits: number): void;
}

interface Reservation {
  ok: boolean;
  /** Credits in the window before this call. */
  used: number;
  /** Each bucket's credits, oldest first (only on a refusal). */
  buckets?: number[];
}

interface CreditWindow {
  reserve(caller: string, bucket: number, credits: number, cap: number): Promise<Reservation>;
  adjust(caller: string, bucket: number, delta: number): Promise<void>;
}

/** The window in process memory (one instance, or the fail-open insurance while Redis is away). */
class MemoryWindow implements CreditWindow {
  private readonly callers = new Map<string, Map<number, number>>();
  private calls = 0;

  async reserve(caller: string, bucket: number, credits: number, cap: number): Promise<Reservation> {
    if (++this.calls % 1000 === 0) this.prune(bucket);
    const b = this.callers.get(caller) ?? new Map<number, number>();
    this.callers.set(caller, b);
    for (const k of b.keys()) if (k <= bucket - BUCKETS) b.delete(k);
    let used = 0;
    for (const n of b.values()) used += n;
    if (used + credits > cap) return { ok: false, used, buckets: Array.from({ length: BUCKETS }, (_, i) => b.get(bucket - BUCKETS + 1 + i) ?? 0) };
    b.set(bucket, (b.get(bucket) ?? 0) + credits);
    return { ok: true, used };
  }

  async adjust(caller: string, bucket: number, delta: number): Promise<void> {
    const b = this.callers.get(caller);
    if (b?.has(bucket)) b.set(bucket, Math.max(0, (b.get(bucket) ?? 0) + delta));
  }

  /** Forgets callers with nothing left in the window. */
  private prune(bucket: number): void {
    for (const [caller, b] of this.callers) if (![...b.keys()].some((k) => k > bucket - BUCKETS)) this.callers.delete(caller);
  }
}

// KEYS: the window's bucket keys, oldest first, this bucket last. ARGV: credits, cap, TTL (ms).
// Returns {1, used} when reserved, or {0, used, bucket counts…} when the cap would be passed.
const RESERVE_SCRIPT = `
local vals = redis.call('MGET', unpack(KEYS))
local used = 0
for _, v in ipairs(vals) do if v then used = used + tonumber(v) end end
local credits = tonumber(ARGV[1])
if used + credits > tonumber(ARGV[2]) then
  local out = {0, used}
  for _, v in ipairs(vals) do out[#out + 1] = v and tonumber(v) or 0 end
  return out
end
redis.call('INCRBY', KEYS[#KEYS], credits)
redis.call('PEXPIRE', KEYS[#KEYS], ARGV[3])
return {1, used}
`;

class RedisWindow implements CreditWindow {
  private readonly redis: Redis;
  private readonly prefix: string;

  constructor(redis: Redis, prefix: string) {
    this.redis = redis;
    this.prefix = prefix;
  }

  // The caller in braces: one hash slot for all its buckets, so the script also runs on a Redis Cluster.
  private key(caller: string, bucket: number): string {
    return `${this.prefix}:{${caller}}:${bucket}`;
  }

  async reserve(caller: string, bucket: number, credits: number, cap: number): Promise<Reservation> {
    const keys = Array.from({ length: BUCKETS }, (_, i) => this.key(caller, bucket - BUCKETS + 1 + i));
    const r = (await this.redis.eval(RESERVE_SCRIPT, keys.length, ...keys, credits, cap, TTL_MS)) as number[];
    return r[0] === 1 ? { ok: true, used: Number(r[1]) } : { ok: false, used: Number(r[1]), buckets: r.slice(2).map(Number) };
  }

  async adjust(caller: string, bucket: number, delta: number): Promise<void> {
    if (delta !== 0) await this.redis.incrby(this.key(caller, bucket), delta);
  }
}

export class RpcLimiter {
  private readonly limits: RpcLimits;
  private readonly rpm: Counter;
  private readonly shared: CreditWindow | undefined;
  private readonly local = new MemoryWindow();
  private readonly warn: (message: string) => void;
  private lastWarning = 0;

  constructor(limits: RpcLimits, opts: { redis?: Redis; keyPrefix: string; warn?: (message: string) => void }) {
    this.limits = limits;
    this.warn = opts.warn ?? ((m) => log.warn(m));
    this.rpm = makeCounter({ redis: opts.redis, keyPrefix: `${opts.keyPrefix}:rpc-rpm`, points: limits.requestsPerMinute, durationSeconds: 60 });
    this.shared = opts.redis ? new RedisWindow(opts.redis, `${opts.keyPrefix}:rpc-credits`) : undefined;
  }

  /** Takes one request and reserves `worstCredits`; 429 naming the cap when either would be passed. */
  async admit(caller: string, worstCredits: number): Promise<RpcAdmission> {
    const { requestsPerMinute: rpmCap, creditsPerDay: cap } = this.limits;
    const r = await consume(this.rpm, caller, 1);
    if (!r.ok) {
      await refund(this.rpm, caller, 1);
      const resetAt = Date.now() + Math.max(1, r.res.msBeforeNext);
      const message = `Rate limit exceeded: ${rpmCap} JSON-RPC requests per minute`;
      throw new ApiError(
        'RATE_LIMIT_EXCEEDED',
        message,
        { type: 'RPM', customMessage: message },
        {
          'retry-after': String(secondsUntil(resetAt - Date.now())),
          ...requestHeaders(rpmCap, 0, resetAt),
          'x-ratelimit-limit': String(rpmCap),
          'x-ratelimit-remaining': '0',
          'x-ratelimit-reset': String(Math.ceil(resetAt / 1000)),
        },
      );
    }
    const headers = requestHeaders(rpmCap, r.res.remainingPoints, Date.now() + r.res.msBeforeNext);
    const bucket = Math.floor(Date.now() / BUCKET_MS);
    const window = this.shared ?? this.local;
    let res: Reservation;
    let used: CreditWindow = window;
    try {
      res = await window.reserve(caller, bucket, worstCredits, cap);
    } catch (e) {
      this.outage(e);
      used = this.local;
      res = await this.local.reserve(caller, bucket, worstCredits, cap);
    }
    if (!res.ok) {
      await refund(this.rpm, caller, 1);
      throw this.creditRefusal(res, bucket, worstCredits);
    }
    headers['x-ratelimit-limit-credits'] = String(cap);
    headers['x-ratelimit-remaining-credits'] = String(Math.max(0, cap - res.used - worstCredits));
    let done = false;
    return {
      headers,
      finish: (actual) => {
        if (done) return;
        done = true;
        used.adjust(caller, bucket, Math.max(0, Math.ceil(actual)) - worstCredits).catch((e) => this.outage(e));
      },
    };
  }

  private creditRefusal(res: Reservation, bucket: number, credits: number): ApiError {
    const cap = this.limits.creditsPerDay;
    if (credits > cap) {
      const message = `Rate limit exceeded: this request may cost ${credits} credits, more than the cap of ${cap} credits per 24 hours`;
      return new ApiError('RATE_LIMIT_EXCEEDED', message, { type: 'CREDITS', customMessage: message });
    }
    // The soonest time enough of the oldest buckets have left the window for this call to fit.
    const excess = res.used + credits - cap;
    let freed = 0;
    let at = (bucket + 1) * BUCKET_MS;
    for (const [i, n] of (res.buckets ?? []).entries()) {
      freed += n;
      at = (bucket + 1 + i) * BUCKET_MS;
      if (freed >= excess) break;
    }
    const message = `Rate limit exceeded: ${cap} JSON-RPC credits per rolling 24 hours (${res.used} used; this request may cost ${credits})`;
    return new ApiError(
      'RATE_LIMIT_EXCEEDED',
      message,
      { type: 'CREDITS', customMessage: message },
      {
        'retry-after': String(secondsUntil(at - Date.now())),
        'x-ratelimit-limit-credits': String(cap),
        'x-ratelimit-remaining-credits': String(Math.max(0, cap - res.used)),
      },
    );
  }

  private outage(e: unknown): void {
    if (Date.now() - this.lastWarning < 60_000) return;
    this.lastWarning = Date.now();
    this.warn(`crypto-rpc: shared credit counting failed (${(e as Error).message}); counting on this instance until Redis answers`);
  }
}
