// Password reset by mail: a link holding 32 random bytes, of which only the SHA-256 is stored; it works once, for a
// short time, and only the newest link of a user works (asking again voids the older ones). Using it sets the new
// password and ends every session of the user, so whoever held a stolen session is out too.
import { createHash, randomBytes } from 'node:crypto';
import { hash } from '@node-rs/argon2';
import { ApiError } from '../api/errors.ts';
import type { Store } from '../db/store.ts';
import { checkPassword, type User, USER_COLUMNS, toUser, type UserRow } from './users.ts';

const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;
const INVALID = 'This reset link is invalid, used or expired. Ask for a new one.';

const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');

/** The email user with this address (a wallet user has no password to reset), or undefined. */
export async function resettableUser(store: Store, email: string): Promise<User | undefined> {
  const row = await store.get<UserRow>(`SELECT ${USER_COLUMNS} FROM users u WHERE u.email = $1 AND u.wallet_id IS NULL`, [email]);
  return row && toUser(row);
}

/** A new reset token for the user (the only one that works from now on), valid for `ttlMs`. */
export async function createResetToken(store: Store, userId: string, ttlMs: number, now = Date.now()): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  await store.tx(async (q) => {
    await q.run('DELETE FROM password_resets WHERE user_id = $1', [userId]);
    await q.run('INSERT INTO password_resets (token_hash, user_id, created_at, expires_at) VALUES ($1, $2, $3, $4)', [
      hashToken(token),
      userId,
      now,
      now + ttlMs,
    ]);
  });
  return token;
}

/**
 * Sets `password` for the token's user and ends all their sessions; 400 for an unknown, used or expired token (one
 * message for all three), or a password outside the rules (checked first, so a typo does not use the link up).
 * The token is claimed by a conditional UPDATE inside the transaction, so two racing uses cannot both succeed.
 */
export async function resetWithToken(store: Store, token: unknown, password: unknown, now = Date.now()): Promise<{ user: User; sessionsEnded: number }> {
  const next = checkPassword(password);
  if (typeof token !== 'string' || !TOKEN_SHAPE.test(token)) throw new ApiError('INVALID_REQUEST', INVALID, { param: 'token' });
  const tokenHash = hashToken(token);
  const passwordHash = await hash(next);
  const result = await store.tx(async (q) => {
    const row = await q.get<{ user_id: string }>('SELECT user_id FROM password_resets WHERE token_hash = $1', [tokenHash]);
    if (!row) return undefined;
    const claimed = await q.run('UPDATE password_resets SET used_at = $2 WHERE token_hash = $1 AND used_at IS NULL AND expires_at > $2', [tokenHash, now]);
    if (claimed !== 1) return undefined;
    await q.run('UPDATE users SET password_hash = $2 WHERE id = $1', [row.user_id, passwordHash]);
    const sessionsEnded = await q.run('DELETE FROM sessions WHERE user_id = $1', [row.user_id]);
    await q.run('DELETE FROM password_resets WHERE user_id = $1 AND token_hash <> $2', [row.user_id, tokenHash]);
    const user = await q.get<UserRow>(`SELECT ${USER_COLUMNS} FROM users u WHERE u.id = $1`, [row.user_id]);
    return user && { user: toUser(user), sessionsEnded };
  });
  if (!result) throw new ApiError('INVALID_REQUEST', INVALID, { param: 'token' });
  return result;
}

/** Deletes reset tokens that can no longer be used (housekeeping); resolves to how many. */
export async function purgeResetTokens(store: Store, now = Date.now()): Promise<number> {
  return store.run('DELETE FROM password_resets WHERE expires_at <= $1 OR used_at IS NOT NULL', [now]);
}
