// TOTP second factor (RFC 6238 through `otpauth`: SHA-1, 6 digits, 30 s, the authenticator apps' common ground) and
// its one-time recovery codes. The secret is sealed under the service's secrets key before it is stored; a server
// with no key (PostgreSQL without LAGOON_SECRETS_KEY) refuses enrolment rather than keep secrets in the clear.
// A code's time step is remembered once used, so an observed code cannot be replayed within its window.
import { createHash, randomBytes } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import { ApiError } from '../api/errors.ts';
import type { SecretBox } from '../db/secret-box.ts';
import type { Store } from '../db/store.ts';
import type { User } from './users.ts';

export const RECOVERY_CODE_COUNT = 10;
const ISSUER = 'Lagoon';
const NO_KEY = 'Two-step sign-in needs a secrets key on this server (LAGOON_SECRETS_KEY). Ask its operator to set one.';

const context = (userId: string) => `users.totp:${userId}`;
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const totpOf = (base32: string, label: string) => new TOTP({ issuer: ISSUER, label, secret: Secret.fromBase32(base32) });

/** A recovery code as shown: 10 characters from an unambiguous alphabet, in two groups (xxxxx-xxxxx). */
function recoveryCode(): string {
  const alphabet = 'abcdefghjkmnpqrstuvwxyz23456789';
  const bytes = randomBytes(10);
  const chars = [...bytes].map((b) => alphabet[b % alphabet.length]);
  return `${chars.slice(0, 5).join('')}-${chars.slice(5).join('')}`;
}
const normaliseRecovery = (code: string) => code.trim().toLowerCase().replace(/[\s-]/g, '');

function box(secrets: SecretBox | undefined): SecretBox {
  if (!secrets) throw new ApiError('CONFLICT', NO_KEY);
  return secrets;
}

function emailUser(user: User): void {
  if (user.wallet) throw new ApiError('INVALID_REQUEST', 'This user signs in with a wallet, which is its own proof');
}

export interface TwoFactorStatus {
  totp: boolean;
  /** Whether this server can hold TOTP secrets (it has a secrets key). */
  available: boolean;
  recoveryCodesLeft: number;
}

export async function twoFactorStatus(store: Store, secrets: SecretBox | undefined, userId: string): Promise<TwoFactorStatus> {
  const row = await store.get<{ totp_secret: string | null }>('SELECT totp_secret FROM users WHERE id = $1', [userId]);
  const left = await store.get<{ n: number }>('SELECT COUNT(*) AS n FROM recovery_codes WHERE user_id = $1 AND used_at IS NULL', [userId]);
  return { totp: Boolean(row?.totp_secret), available: Boolean(secrets), recoveryCodesLeft: Number(left?.n ?? 0) };
}

export async function hasTotp(store: Store, userId: string): Promise<boolean> {
  return Boolean((await store.get<{ totp_secret: string | null }>('SELECT totp_secret FROM users WHERE id = $1', [userId]))?.totp_secret);
}

/** Starts enrolment: a new secret, kept (sealed) as pending until a code from it is confirmed. */
export async function beginTotp(store: Store, secrets: SecretBox | undefined, user: User): Promise<{ secret: string; uri: string }> {
  emailUser(user);
  const b = box(secrets);
  if (await hasTotp(store, user.id)) throw new ApiError('CONFLICT', 'Two-step sign-in is already on. Turn it off first to use another app.');
  const secret = new Secret({ size: 20 }).base32;
  await store.run('UPDATE users SET totp_pending = $2 WHERE id = $1', [user.id, b.seal(secret, context(user.id))]);
  return { secret, uri: totpOf(secret, user.email).toString() };
}

/** The time step `code` is valid for (±1 step), or undefined. */
function stepOf(base32: string, code: string, now: number): number | undefined {
  const t = totpOf(base32, '');
  const delta = t.validate({ token: code, timestamp: now, window: 1 });
  return delta === null ? undefined : t.counter({ timestamp: now }) + delta;
}

const CODE_SHAPE = /^\d{6}$/;
const BAD_CODE = 'That code is not right. Enter the current 6-digit code from your authenticator app.';

/** Confirms enrolment with a code from the pending secret; resolves to the recovery codes (shown once, stored hashed). */
export async function confirmTotp(store: Store, secrets: SecretBox | undefined, user: User, code: unknown, now = Date.now()): Promise<string[]> {
  const b = box(secrets);
  const row = await store.get<{ totp_pending: string | null }>('SELECT totp_pending FROM users WHERE id = $1', [user.id]);
  if (!row?.totp_pending) throw new ApiError('INVALID_REQUEST', 'Start setting up two-step sign-in first');
  const c = typeof code === 'string' ? code.replace(/\s/g, '') : '';
  const step = CODE_SHAPE.test(c) ? stepOf(b.open(row.totp_pending, context(user.id)), c, now) : undefined;
  if (step === undefined) throw new ApiError('INVALID_REQUEST', BAD_CODE, { param: 'code' });
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, recoveryCode);
  await store.tx(async (q) => {
    await q.run('UPDATE users SET totp_secret = totp_pending, totp_pending = NULL, totp_last_step = $2 WHERE id = $1', [user.id, step]);
    await q.run('DELETE FROM recovery_codes WHERE user_id = $1', [user.id]);
    for (const rc of codes) await q.run('INSERT INTO recovery_codes (user_id, code_hash) VALUES ($1, $2)', [user.id, sha256(normaliseRecovery(rc))]);
  });
  return codes;
}

/**
 * Checks a second factor for the user: a current TOTP code (each time step once) or an unused recovery code (used up
 * by this). False when neither matches; a malformed input is simply false.
 */
export async function verifySecondFactor(store: Store, secrets: SecretBox | undefined, userId: string, code: unknown, now = Date.now()): Promise<boolean> {
  if (typeof code !== 'string' || code.length > 64) return false;
  const c = code.replace(/\s/g, '');
  if (CODE_SHAPE.test(c)) {
    if (!secrets) return false;
    const row = await store.get<{ totp_secret: string | null; totp_last_step: number | string | null }>(
      'SELECT totp_secret, totp_last_step FROM users WHERE id = $1',
      [userId],
    );
    if (!row?.totp_secret) return false;
    const step = stepOf(secrets.open(row.totp_secret, context(userId)), c, now);
    if (step === undefined) return false;
    // Claimed atomically: a step at or before the last one used is a replay.
    const claimed = await store.run('UPDATE users SET totp_last_step = $2 WHERE id = $1 AND (totp_last_step IS NULL OR totp_last_step < $2)', [userId, step]);
    return claimed === 1;
  }
  const r = normaliseRecovery(code);
  if (!/^[a-z0-9]{10}$/.test(r)) return false;
  const used = await store.run('UPDATE recovery_codes SET used_at = $3 WHERE user_id = $1 AND code_hash = $2 AND used_at IS NULL', [userId, sha256(r), now]);
  return used === 1;
}

/** Turns TOTP off (a current code or a recovery code required) and drops the recovery codes. */
export async function disableTotp(store: Store, secrets: SecretBox | undefined, user: User, code: unknown): Promise<void> {
  if (!(await hasTotp(store, user.id))) return;
  if (!(await verifySecondFactor(store, secrets, user.id, code))) throw new ApiError('INVALID_REQUEST', BAD_CODE, { param: 'code' });
  await store.tx(async (q) => {
    await q.run('UPDATE users SET totp_secret = NULL, totp_pending = NULL, totp_last_step = NULL WHERE id = $1', [user.id]);
    await q.run('DELETE FROM recovery_codes WHERE user_id = $1', [user.id]);
  });
}

// The sign-in's second step: after the password, a short-lived challenge (only its SHA-256 stored) that a code redeems.
const CHALLENGE_TTL_MS = 5 * 60_000;
const CHALLENGE_ATTEMPTS = 5;
const CHALLENGE_SHAPE = /^[A-Za-z0-9_-]{43}$/;

export async function createSignInChallenge(store: Store, userId: string, now = Date.now()): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  await store.run('DELETE FROM sign_in_challenges WHERE expires_at <= $1', [now]);
  await store.run('INSERT INTO sign_in_challenges (token_hash, user_id, expires_at) VALUES ($1, $2, $3)', [sha256(token), userId, now + CHALLENGE_TTL_MS]);
  return token;
}

/**
 * Redeems a challenge with a second factor: the user id, or 401. A challenge allows a few tries and then is gone; a
 * redeemed one is gone too.
 */
export async function redeemSignInChallenge(store: Store, secrets: SecretBox | undefined, token: unknown, code: unknown, now = Date.now()): Promise<string> {
  const expired = new ApiError('AUTHENTICATION_FAILED', 'This sign-in has expired. Enter your email and password again.');
  if (typeof token !== 'string' || !CHALLENGE_SHAPE.test(token)) throw expired;
  const hash = sha256(token);
  const row = await store.get<{ user_id: string; expires_at: number | string; attempts: number | string }>(
    'SELECT user_id, expires_at, attempts FROM sign_in_challenges WHERE token_hash = $1',
    [hash],
  );
  if (!row || Number(row.expires_at) <= now || Number(row.attempts) >= CHALLENGE_ATTEMPTS) throw expired;
  // Counted before the check, so concurrent guesses cannot exceed the budget.
  const counted = await store.run('UPDATE sign_in_challenges SET attempts = attempts + 1 WHERE token_hash = $1 AND attempts < $2', [hash, CHALLENGE_ATTEMPTS]);
  if (counted !== 1) throw expired;
  if (!(await verifySecondFactor(store, secrets, row.user_id, code, now)))
    throw new ApiError('INVALID_REQUEST', 'That code is not right. Enter the current code from your authenticator app, or a recovery code.', { param: 'code' });
  if ((await store.run('DELETE FROM sign_in_challenges WHERE token_hash = $1', [hash])) !== 1) throw expired;
  return row.user_id;
}

/**
 * The operator clears a user's second factors (a lost phone, lost passkeys): the TOTP secret with its recovery codes
 * and pending sign-in challenges, and every passkey. The password stays; the user can enrol again in Settings.
 */
export async function clearSecondFactors(store: Store, userId: string): Promise<{ totp: boolean; passkeys: number }> {
  return store.tx(async (q) => {
    const had = await q.get<{ totp_secret: string | null }>('SELECT totp_secret FROM users WHERE id = $1', [userId]);
    await q.run('UPDATE users SET totp_secret = NULL, totp_pending = NULL, totp_last_step = NULL WHERE id = $1', [userId]);
    await q.run('DELETE FROM recovery_codes WHERE user_id = $1', [userId]);
    await q.run('DELETE FROM sign_in_challenges WHERE user_id = $1', [userId]);
    const passkeys = await q.run('DELETE FROM passkeys WHERE user_id = $1', [userId]);
    return { totp: Boolean(had?.totp_secret), passkeys };
  });
}
