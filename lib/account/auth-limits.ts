// Brute-force and sign-up-spam limits for the app's account routes, counted by rate-limiter-flexible (in process
// memory, or in Redis when the service has a Redis client, so every instance shares one budget).
//   - failed sign-ins per email and per client IP within a window (an attempt is counted before the password is
//     checked and given back when it succeeds, so concurrent guesses cannot slip past the limit);
//   - sign-ups per client IP per hour (each new account gets a daily DIEM allowance worth farming);
//   - password-reset requests per address and per client IP per hour (counted whether the account exists or not, so
//     the limit tells nothing about it).
import { createHash } from 'node:crypto';
import { ApiError } from '../api/errors.ts';
import type { AuthLimitConfig } from '../config.ts';
import { consume, type Counter, makeCounter, refund } from '../limits/counters.ts';
import { secondsUntil } from '../limits/headers.ts';
import type { AppDeps } from '../http/app-deps.ts';

export type { AuthLimitConfig };

// Emails are hashed before they become counter keys, so Redis never holds a list of addresses.
const emailKey = (email: string) => createHash('sha256').update(email.trim().toLowerCase()).digest('hex').slice(0, 32);

const minutes = (seconds: number) => (seconds < 90 ? `${seconds} seconds` : `${Math.ceil(seconds / 60)} minutes`);

export interface AuthLimits {
  /** Counts a sign-in attempt (429 when the email's or the IP's failures are used up); call `succeeded` after a success. */
  attempt(ip: string, email: string): Promise<void>;
  /** Gives the attempt back and forgets the email's failures. */
  succeeded(ip: string, email: string): Promise<void>;
  /** Counts a sign-up (429 past the hourly budget of this IP). */
  signUp(ip: string): Promise<void>;
  /** Gives back a counted sign-up that created no account. */
  signUpRefused(ip: string): Promise<void>;
  /** Counts a password-reset request (429 past the hourly budget of this address or this IP). */
  resetMail(ip: string, email: string): Promise<void>;
}

export function authLimits(
  deps: AppDeps,
  config: AuthLimitConfig = deps.app.authLimits,
  mail: { perEmailPerHour: number; perIpPerHour: number } = deps.app.mail ?? { perEmailPerHour: 3, perIpPerHour: 10 },
): AuthLimits {
  // The service keeps its Redis client private to the rate limiter; use it when the service exposes one.
  const redis = deps.svc.redis;
  const prefix = `${deps.svc.config.redisPrefix}:app`;
  const counter = (name: string, points: number, durationSeconds: number): Counter =>
    makeCounter({ redis, keyPrefix: `${prefix}:${name}`, points, durationSeconds });
  const byEmail = counter('signin-email', config.failuresPerEmail, config.failureWindowSeconds);
  const byIp = counter('signin-ip', config.failuresPerIp, config.failureWindowSeconds);
  const signUps = counter('signup-ip', config.signUpsPerIpPerHour, 3600);
  const resetsByEmail = counter('reset-email', mail.perEmailPerHour, 3600);
  const resetsByIp = counter('reset-ip', mail.perIpPerHour, 3600);

  const refused = (ms: number, what: string) => {
    const s = secondsUntil(ms);
    return new ApiError('RATE_LIMIT_EXCEEDED', `${what} Try again in ${minutes(s)}.`, { retryAfter: s }, { 'retry-after': String(s) });
  };

  return {
    async attempt(ip, email) {
      const e = await consume(byEmail, emailKey(email), 1);
      const i = await consume(byIp, ip, 1);
      if (!e.ok || !i.ok) {
        const ms = Math.max(e.ok ? 0 : e.res.msBeforeNext, i.ok ? 0 : i.res.msBeforeNext);
        throw refused(ms, 'Too many failed sign-in attempts.');
      }
    },
    async succeeded(ip, email) {
      await Promise.all([byEmail.delete(emailKey(email)), refund(byIp, ip, 1)]);
    },
    async signUp(ip) {
      const o = await consume(signUps, ip, 1);
      if (!o.ok) throw refused(o.res.msBeforeNext, 'Too many accounts were created from this network recently.');
    },
    async signUpRefused(ip) {
      await refund(signUps, ip, 1);
    },
    async resetMail(ip, email) {
      const i = await consume(resetsByIp, ip, 1);
      if (!i.ok) throw refused(i.res.msBeforeNext, 'Too many password resets were asked for from this network.');
      const e = await consume(resetsByEmail, emailKey(email), 1);
      if (!e.ok) throw refused(e.res.msBeforeNext, 'Too many reset mails were asked for this address.');
    },
  };
}
