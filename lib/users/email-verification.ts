// Email verification: a mailed link (32 random bytes, only the SHA-256 stored, for one day) proves the user reads the
// address. The link is bound to the address it was sent to, works once, and asking again voids the earlier one.
import { createHash, randomBytes } from 'node:crypto';
import { ApiError } from '../api/errors.ts';
import type { Store } from '../db/store.ts';

export const VERIFY_TTL_MS = 86_400_000;
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;
const INVALID = 'This verification link is invalid, used or expired. Send a new one from your account page.';
const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');

export async function emailVerifiedAt(store: Store, userId: string): Promise<number | null> {
  const row = await store.get<{ email_verified_at: number | string | null }>('SELECT email_verified_at FROM users WHERE id = $1', [userId]);
  return row?.email_verified_at == null ? null : Number(row.email_verified_at);
}

/** A new verification token for the user's current address (the only one that works from now on). */
export async function createVerificationToken(store: Store, userId: string, email: string, now = Date.now()): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  await store.tx(async (q) => {
    await q.run('DELETE FROM email_verifications WHERE user_id = $1', [userId]);
    await q.run('INSERT INTO email_verifications (token_hash, user_id, email, expires_at) VALUES ($1, $2, $3, $4)', [
      hashToken(token),
      userId,
      email,
      now + VERIFY_TTL_MS,
    ]);
  });
  return token;
}

/** Marks the address verified; 400 for an unknown, used or expired token, or one sent to an address since changed. */
export async function verifyEmail(store: Store, token: unknown, now = Date.now()): Promise<void> {
  if (typeof token !== 'string' || !TOKEN_SHAPE.test(token)) throw new ApiError('INVALID_REQUEST', INVALID, { param: 'token' });
  const tokenHash = hashToken(token);
  const ok = await store.tx(async (q) => {
    const row = await q.get<{ user_id: string; email: string; expires_at: number | string }>(
      'SELECT user_id, email, expires_at FROM email_verifications WHERE token_hash = $1',
      [tokenHash],
    );
    if (!row || (await q.run('DELETE FROM email_verifications WHERE token_hash = $1', [tokenHash])) !== 1) return false;
    if (Number(row.expires_at) <= now) return false;
    return (await q.run('UPDATE users SET email_verified_at = $3 WHERE id = $1 AND email = $2', [row.user_id, row.email, now])) === 1;
  });
  if (!ok) throw new ApiError('INVALID_REQUEST', INVALID, { param: 'token' });
}
