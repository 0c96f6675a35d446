// Browser sessions. The cookie carries 32 random bytes; only their SHA-256 is stored (sessions.id_hash), so a leaked
// table cannot be replayed. Each session has its own CSRF token (see csrf.ts).
import { createHash, randomBytes } from 'node:crypto';
import type { Store } from '../db/store.ts';
import { type TeamRole, type User, USER_COLUMNS, toUser, type UserRow } from './users.ts';

export const SESSION_COOKIE = 'lagoon_session';
export const SESSION_TTL_MS = 30 * 86_400_000;
/** last_seen_at is written at most this often per session, so reading a session is usually a single SELECT. */
export const LAST_SEEN_RESOLUTION_MS = 60_000;

const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

export const hashSessionToken = (token: string): string => createHash('sha256').update(token).digest('hex');

export async function createSession(
  store: Store,
  userId: string,
  opts: { ttlMs?: number; now?: number; secondFactor?: boolean } = {},
): Promise<{ token: string; csrfToken: string; expiresAt: number }> {
  const now = opts.now ?? Date.now();
  const token = randomBytes(32).toString('base64url');
  const csrfToken = randomBytes(32).toString('base64url');
  const expiresAt = now + (opts.ttlMs ?? SESSION_TTL_MS);
  await store.run(
    'INSERT INTO sessions (id_hash, user_id, csrf_token, created_at, expires_at, last_seen_at, second_factor) VALUES ($1, $2, $3, $4, $5, $6, $7)',
    [hashSessionToken(token), userId, csrfToken, now, expiresAt, now, opts.secondFactor === true],
  );
  return { token, csrfToken, expiresAt };
}

interface SessionRow extends UserRow {
  s_csrf_token: string;
  s_expires_at: number;
  s_last_seen_at: number;
  s_second_factor: boolean | number;
  a_disabled_at: number | string | null;
  t_account_id: string | null;
  t_role: string | null;
  t_name: string | null;
}

/** The session's user and CSRF token; undefined for an unknown, malformed or expired token (an expired one is deleted). */
export async function readSession(
  store: Store,
  token: string | undefined,
  now = Date.now(),
): Promise<{ user: User; csrfToken: string; expiresAt: number; accountDisabledAt: number | null; secondFactor: boolean } | undefined> {
  if (!token || !TOKEN_SHAPE.test(token)) return undefined;
  const idHash = hashSessionToken(token);
  const row = await store.get<SessionRow>(
    `SELECT ${USER_COLUMNS}, s.csrf_token AS s_csrf_token, s.expires_at AS s_expires_at, s.last_seen_at AS s_last_seen_at, s.second_factor AS s_second_factor,
       (SELECT a.disabled_at FROM accounts a WHERE a.id = u.account_id) AS a_disabled_at,
       m.account_id AS t_account_id, m.role AS t_role, (SELECT a.name FROM accounts a WHERE a.id = m.account_id) AS t_name
     FROM sessions s JOIN users u ON u.id = s.user_id
       LEFT JOIN team_members m ON m.account_id = s.active_account_id AND m.user_id = s.user_id
     WHERE s.id_hash = $1`,
    [idHash],
  );
  if (!row) return undefined;
  const expiresAt = Number(row.s_expires_at);
  if (expiresAt <= now) {
    await store.run('DELETE FROM sessions WHERE id_hash = $1', [idHash]);
    return undefined;
  }
  if (now - Number(row.s_last_seen_at) >= LAST_SEEN_RESOLUTION_MS) {
    await store.run('UPDATE sessions SET last_seen_at = $2 WHERE id_hash = $1 AND last_seen_at < $2', [idHash, now]);
  }
  // The account's disabled mark travels with the session, so the app refuses it where sessions are checked.
  const accountDisabledAt = row.a_disabled_at === null || row.a_disabled_at === undefined ? null : Number(row.a_disabled_at);
  const user = toUser(row);
  // The team the session switched to, while the user is still its member: read on every request (no cached grant),
  // so a removed member is back on their own account at once, on every instance.
  if (row.t_account_id && row.t_role) {
    user.accountId = row.t_account_id;
    user.team = { accountId: row.t_account_id, name: row.t_name ?? '', role: row.t_role as TeamRole };
  }
  return { user, csrfToken: row.s_csrf_token, expiresAt, accountDisabledAt, secondFactor: Boolean(row.s_second_factor) };
}

/** The account this session acts for from now on: a team the user is a member of, or null for their own. */
export async function setSessionAccount(store: Store, token: string | undefined, accountId: string | null): Promise<void> {
  if (!token || !TOKEN_SHAPE.test(token)) return;
  await store.run('UPDATE sessions SET active_account_id = $2 WHERE id_hash = $1', [hashSessionToken(token), accountId]);
}

/** Signs one session out (idempotent). */
export async function endSession(store: Store, token: string | undefined): Promise<void> {
  if (!token || !TOKEN_SHAPE.test(token)) return;
  await store.run('DELETE FROM sessions WHERE id_hash = $1', [hashSessionToken(token)]);
}

/** Signs the user out everywhere; resolves to the number of sessions ended. */
export async function endAllSessions(store: Store, userId: string): Promise<number> {
  return store.run('DELETE FROM sessions WHERE user_id = $1', [userId]);
}

/** Deletes expired sessions of every user (housekeeping); resolves to how many. */
export async function purgeExpiredSessions(store: Store, now = Date.now()): Promise<number> {
  return store.run('DELETE FROM sessions WHERE expires_at <= $1', [now]);
}

/** The Set-Cookie value for a session token. */
export function sessionCookie(token: string, opts: { secure: boolean; maxAgeSeconds: number }): string {
  const maxAge = Math.max(0, Math.floor(opts.maxAgeSeconds));
  return `${SESSION_COOKIE}=${token}; Path=/; Max-Age=${maxAge}; HttpOnly; SameSite=Lax${opts.secure ? '; Secure' : ''}`;
}

/** The Set-Cookie value that removes the session cookie. */
export function clearSessionCookie(secure: boolean): string {
  return `${SESSION_COOKIE}=; Path=/; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
}

/** A Cookie header as name → value (the first occurrence of a name wins; values are percent-decoded when valid). */
export function parseCookies(header: string | undefined): Record<string, string> {
  const out: Record<string, string> = Object.create(null);
  if (!header) return out;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const name = part.slice(0, eq).trim();
    if (!name || name in out) continue;
    let value = part.slice(eq + 1).trim();
    if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
    try {
      value = decodeURIComponent(value);
    } catch {
      // keep the raw value
    }
    out[name] = value;
  }
  return out;
}
