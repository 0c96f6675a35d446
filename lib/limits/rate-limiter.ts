// Per-credential, per-model request and token limits (spec "Limits"). Counting is fixed windows, in memory or in
// Redis (counters.ts); this class picks the figures, orders the counters and undoes partial admissions. In memory
// the counters answer at once, and admit and finish await nothing on the way to admitting.
//
// Counting rules:
// - An admitted request counts 1 against RPM (and RPD when configured) and, for text models, reserves its
//   estimated tokens against TPM; Admission.finish corrects the reservation to the actual usage.
// - A refused request counts nothing: the counter that refused and every counter consumed before it are refunded.
//   So the counters hold exactly what was admitted, and a TPM refusal does not also cost a request slot.
import type { Redis } from 'ioredis';
import { ApiError } from '../api/errors.ts';
import type { ModelEntry } from '../models/schema.ts';
import type { LimitClass, LimitConfig } from './config.ts';
import { consume, current, makeCounter, refund, type Counter } from './counters.ts';
import { requestHeaders, secondsUntil, tokenHeaders } from './headers.ts';
import { log } from '../log.ts';

export type LimitType = 'RPM' | 'TPM' | 'RPD';
export type RateTier = 'default' | 'partner';

export interface LimitSubject {
  /** Who is limited: an API key id, or a wallet user's id. */
  credential: string;
  /** Reported as x-ratelimit-type on refusals; api_key unless said otherwise. */
  credentialKind?: 'api_key' | 'user';
  /** The model the request names (or the endpoint, for 'api'); keys the counters and names the limit. */
  modelId: string;
  /** The catalogue entry, or 'api' for the management endpoints (one budget per credential across them). */
  model: ModelEntry | 'api';
  tier: RateTier;
}

export interface Admission {
  /** The x-ratelimit-* headers for the response. */
  headers: Record<string, string>;
  /** Corrects the token reservation to the actual usage (text models); only the first call counts. Never rejects. */
  finish(actualTokens: number): Promise<void>;
}

export interface LimitStatus {
  rpm: number;
  rpd?: number;
  tpm?: number;
  remainingRequests: number;
  remainingTokens?: number;
  /** Unix time in seconds when the request window resets. */
  resetRequestsAt: number;
}

export interface RateLimiterOptions {
  /** Shared counters across instances; in process memory when absent. */
  redis?: Redis;
  /** Namespace of the counter keys (tests use a unique one). */
  keyPrefix?: string;
  /** Where finish() reports a failed budget correction; the server log by default. */
  warn?: (message: string) => void;
}

/** The limit type of a RATE_LIMIT_EXCEEDED error thrown by admit, for the breach log. */
export function rateLimitTypeOf(e: unknown): LimitType | undefined {
  if (!(e instanceof ApiError) || e.code !== 'RATE_LIMIT_EXCEEDED') return undefined;
  const t = e.extra?.type;
  return t === 'RPM' || t === 'TPM' || t === 'RPD' ? t : undefined;
}

type Kind = 'rpm' | 'rpd' | 'tpm';

export class RateLimiter {
  readonly config: LimitConfig;
  private readonly redis: Redis | undefined;
  private readonly keyPrefix: string;
  private readonly warn: (message: string) => void;
  private readonly counters: Record<Kind, Map<number, Counter>> = { rpm: new Map(), rpd: new Map(), tpm: new Map() };

  constructor(config: LimitConfig, opts: RateLimiterOptions = {}) {
    this.config = config;
    this.redis = opts.redis;
    this.keyPrefix = opts.keyPrefix ?? 'lagoon:rl';
    this.warn = opts.warn ?? ((m) => log.warn(m));
  }

  /** The limits that apply to a model (or the management API) at a tier. Video counts as its queue endpoint. */
  classOf(model: ModelEntry | 'api', tier: RateTier): LimitClass {
    const c = this.config;
    if (model === 'api') return c.api[tier];
    switch (model.type) {
      case 'text':
        return c.text[tier][model.tier];
      case 'image':
      case 'upscale':
      case 'inpaint':
      case 'background-remove':
        return c.image[tier];
      case 'tts':
      case 'asr':
        return c.audio[tier];
      case 'embedding':
        return c.embedding[tier];
      case 'video':
        return c.video.queue[tier];
    }
  }

  async admit(k: LimitSubject, estimatedTokens: number): Promise<Admission> {
    const cls = this.classOf(k.model, k.tier);
    const key = subjectKey(k);
    const rpm = this.counter('rpm', cls.rpm);
    const rp = consume(rpm, key, 1);
    const r = rp instanceof Promise ? await rp : rp;
    if (!r.ok) {
      await refund(rpm, key, 1);
      throw this.refusal(k, cls, 'RPM', r.res.msBeforeNext, 0);
    }

    if (cls.rpd !== undefined) {
      const rpd = this.counter('rpd', cls.rpd);
      const dp = consume(rpd, key, 1);
      const d = dp instanceof Promise ? await dp : dp;
      if (!d.ok) {
        await Promise.all([refund(rpd, key, 1), refund(rpm, key, 1)]);
        throw this.refusal(k, cls, 'RPD', d.res.msBeforeNext, 0);
      }
    }

    const headers = requestHeaders(cls.rpm, r.res.remainingPoints, Date.now() + r.res.msBeforeNext);
    if (cls.tpm === undefined) return { headers, finish: nothingToFinish };

    const tpm = this.counter('tpm', cls.tpm);
    const reserved = Math.max(0, Math.ceil(estimatedTokens));
    const tp = consume(tpm, key, reserved);
    const t = tp instanceof Promise ? await tp : tp;
    if (!t.ok) {
      const [, rpmAfter] = await Promise.all([
        refund(tpm, key, reserved),
        refund(rpm, key, 1),
        cls.rpd !== undefined ? refund(this.counter('rpd', cls.rpd), key, 1) : undefined,
      ]);
      const requestsLeft = Math.min(cls.rpm, cls.rpm - (rpmAfter?.consumedPoints ?? cls.rpm));
      const tokensLeft = cls.tpm - (t.res.consumedPoints - reserved);
      throw this.refusal(k, cls, 'TPM', t.res.msBeforeNext, requestsLeft, { reserved, tokensLeft });
    }
    Object.assign(headers, tokenHeaders(cls.tpm, t.res.remainingPoints, t.res.msBeforeNext));
    return { headers, finish: this.finisher(tpm, key, reserved, Date.now() + t.res.msBeforeNext) };
  }

  /** The headers admit would send, without consuming anything. */
  async peek(k: LimitSubject): Promise<Record<string, string>> {
    const { cls, r, t } = await this.read(k);
    const headers = requestHeaders(cls.rpm, r ? r.remainingPoints : cls.rpm, Date.now() + (r ? r.msBeforeNext : this.windowMs));
    if (cls.tpm !== undefined) Object.assign(headers, tokenHeaders(cls.tpm, t ? t.remainingPoints : cls.tpm, t ? t.msBeforeNext : this.windowMs));
    return headers;
  }

  /** The daily request budget and what is left of it now, without consuming anything; undefined when the class has no rpd. */
  async dayPeek(k: LimitSubject): Promise<{ limit: number; remaining: number; resetsAt: number } | undefined> {
    const cls = this.classOf(k.model, k.tier);
    if (cls.rpd === undefined) return undefined;
    const d = await current(this.counter('rpd', cls.rpd), subjectKey(k));
    return { limit: cls.rpd, remaining: d ? d.remainingPoints : cls.rpd, resetsAt: Date.now() + (d ? d.msBeforeNext : this.config.daySeconds * 1000) };
  }

  /** The figures and what is left of them now (GET /api_keys/rate_limits). Unset figures are absent. */
  async status(k: LimitSubject): Promise<LimitStatus> {
    const { cls, r, t } = await this.read(k);
    const out: LimitStatus = {
      rpm: cls.rpm,
      remainingRequests: r ? r.remainingPoints : cls.rpm,
      resetRequestsAt: Math.ceil((Date.now() + (r ? r.msBeforeNext : this.windowMs)) / 1000),
    };
    if (cls.rpd !== undefined) out.rpd = cls.rpd;
    if (cls.tpm !== undefined) {
      out.tpm = cls.tpm;
      out.remainingTokens = t ? t.remainingPoints : cls.tpm;
    }
    return out;
  }

  /** The class and the current request and token windows (undefined: nothing counted in them yet). */
  private async read(k: LimitSubject) {
    const cls = this.classOf(k.model, k.tier);
    const key = subjectKey(k);
    const [r, t] = await Promise.all([
      current(this.counter('rpm', cls.rpm), key),
      cls.tpm !== undefined ? current(this.counter('tpm', cls.tpm), key) : undefined,
    ]);
    return { cls, r, t };
  }

  private get windowMs(): number {
    return this.config.windowSeconds * 1000;
  }

  /** One counter per kind and figure; classes with equal figures share it (their keys differ by model). */
  private counter(kind: Kind, points: number): Counter {
    const byPoints = this.counters[kind];
    let c = byPoints.get(points);
    if (!c) {
      const durationSeconds = kind === 'rpd' ? this.config.daySeconds : this.config.windowSeconds;
      c = makeCounter({ redis: this.redis, keyPrefix: `${this.keyPrefix}:${kind}`, points, durationSeconds });
      byPoints.set(points, c);
    }
    return c;
  }

  private finisher(tpm: Counter, key: string, reserved: number, windowEndsAt: number): Admission['finish'] {
    let done = false;
    // A refund sent just as the window rolls over would land in the next window as extra capacity; close to the
    // end, the reservation simply expires with its window instead.
    const guardMs = Math.min(500, this.windowMs / 10);
    return async (actualTokens) => {
      if (done) return;
      done = true;
      const diff = Math.max(0, Math.ceil(actualTokens)) - reserved;
      try {
        let p: unknown;
        if (diff > 0) p = tpm.penalty(key, diff);
        else if (diff < 0 && Date.now() < windowEndsAt - guardMs) p = refund(tpm, key, -diff);
        if (p instanceof Promise) await p;
      } catch (e) {
        // finish runs after the response; a failed correction only skews this window's token budget.
        this.warn(`rate limits: token budget correction failed for ${key}: ${(e as Error).message}`);
      }
    };
  }

  private refusal(
    k: LimitSubject,
    cls: LimitClass,
    type: LimitType,
    msBeforeNext: number,
    remainingRequests: number,
    tokens?: { reserved: number; tokensLeft: number },
  ): ApiError {
    const waitMs = Math.max(msBeforeNext, 1);
    const headers: Record<string, string> = {
      'retry-after': String(secondsUntil(waitMs)),
      // The next allowed attempt, whichever limit refused.
      ...requestHeaders(cls.rpm, remainingRequests, Date.now() + waitMs),
      'x-ratelimit-type': k.credentialKind ?? 'api_key',
    };
    if (cls.tpm !== undefined && tokens) Object.assign(headers, tokenHeaders(cls.tpm, tokens.tokensLeft, waitMs));
    const what = k.model === 'api' ? 'the management API' : `model ${k.modelId}`;
    const window = type === 'RPD' ? per(this.config.daySeconds, 86_400, 'day') : per(this.config.windowSeconds, 60, 'minute');
    const figure =
      type === 'TPM'
        ? `${cls.tpm} tokens ${window} for ${what} (this request reserves ${tokens?.reserved ?? 0})`
        : `${type === 'RPD' ? cls.rpd : cls.rpm} requests ${window} for ${what}`;
    return new ApiError('RATE_LIMIT_EXCEEDED', `Rate limit exceeded: ${figure}`, { type }, headers);
  }
}

const nothingToFinish: Admission['finish'] = async () => {};

/** "per minute" for the standard window, "per 2 seconds" for a shortened one. */
function per(seconds: number, standard: number, name: string): string {
  return seconds === standard ? `per ${name}` : `per ${seconds} seconds`;
}

/** The counter key: per credential and model, or per credential alone for the management API. */
function subjectKey(k: LimitSubject): string {
  return k.model === 'api' ? `${k.credential}|api` : `${k.credential}|${k.modelId}`;
}
