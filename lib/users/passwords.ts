// Changing what a user signed up with: their password (the current one required; every other session ends, so a
// stolen session does not outlive the change), their display name, and the operator's reset (a temporary password,
// shown once to the operator; all the user's sessions end).
import { randomBytes } from 'node:crypto';
import { hash, verify } from '@node-rs/argon2';
import { ApiError } from '../api/errors.ts';
import type { Store } from '../db/store.ts';
import { hashSessionToken } from './sessions.ts';
import { checkPassword, normaliseDisplayName, PASSWORD_MAX, type User } from './users.ts';

/** A temporary password: 18 random bytes in base64url (24 characters, 144 bits), within the length rules. */
export const temporaryPassword = (): string => randomBytes(18).toString('base64url');

function emailUserOnly(user: Pick<User, 'wallet'>): void {
  if (user.wallet) throw new ApiError('INVALID_REQUEST', 'This user signs in with a wallet and has no password');
}

async function storedHash(store: Store, userId: string): Promise<string> {
  const row = await store.get<{ password_hash: string }>('SELECT password_hash FROM users WHERE id = $1', [userId]);
  if (!row) throw new ApiError('NOT_FOUND', 'User not found');
  return row.password_hash;
}

async function setHash(store: Store, userId: string, password: string): Promise<void> {
  await store.run('UPDATE users SET password_hash = $2 WHERE id = $1', [userId, await hash(password)]);
}

/**
 * Sets a new password once the current one is verified (400 naming `currentPassword` when it is wrong: the user is
 * signed in, so this is a form error, not an authentication failure). Every session of the user but `keepToken`'s
 * ends; resolves to how many did.
 */
export async function changePassword(
  store: Store,
  user: User,
  input: { currentPassword: unknown; newPassword: unknown },
  keepToken: string | undefined,
): Promise<number> {
  emailUserOnly(user);
  const current = typeof input.currentPassword === 'string' ? input.currentPassword : '';
  if (!current) throw new ApiError('INVALID_REQUEST', 'Enter your current password', { param: 'currentPassword' });
  const next = checkPassword(input.newPassword, 'newPassword');
  let ok = false;
  try {
    ok = current.length <= PASSWORD_MAX * 4 && (await verify(await storedHash(store, user.id), current));
  } catch {
    ok = false;
  }
  if (!ok) throw new ApiError('INVALID_REQUEST', 'The current password is incorrect', { param: 'currentPassword' });
  if (next === current) throw new ApiError('INVALID_REQUEST', 'The new password must differ from the current one', { param: 'newPassword' });
  await setHash(store, user.id, next);
  return store.run('DELETE FROM sessions WHERE user_id = $1 AND id_hash <> $2', [user.id, keepToken ? hashSessionToken(keepToken) : '']);
}

/** Sets the display name (trimmed, controls removed; empty clears it); resolves to the name stored. */
export async function setDisplayName(store: Store, userId: string, name: unknown): Promise<string> {
  if (typeof name !== 'string') throw new ApiError('INVALID_REQUEST', 'Display name must be text', { param: 'displayName' });
  const clean = normaliseDisplayName(name);
  await store.run('UPDATE users SET display_name = $2 WHERE id = $1', [userId, clean]);
  return clean;
}

/** The operator's reset: a new temporary password for this email user, every session of theirs ended. */
export async function resetPassword(store: Store, user: User): Promise<{ password: string; sessionsEnded: number }> {
  emailUserOnly(user);
  const password = temporaryPassword();
  await setHash(store, user.id, password);
  const sessionsEnded = await store.run('DELETE FROM sessions WHERE user_id = $1', [user.id]);
  return { password, sessionsEnded };
}
