// Browser-app users: local email + password accounts. Each user owns one service account and one INFERENCE key held
// only on the server (its secret is never kept or shown); the app's route handlers act for the user through
// principalForUser, calling the same service code as the API without any bearer secret. The first user ever is the
// operator admin.
import { randomUUID } from 'node:crypto';
import { hash, verify } from '@node-rs/argon2';
import { createAccount, getAccount, refuseDisabledAccount } from '../accounts/accounts.ts';
import { ApiError } from '../api/errors.ts';
import { accountKeys, cachedPrincipal, type Principal } from '../auth/keys.ts';
import { type Store, storeInTx } from '../db/store.ts';
import { toUser, type User, USER_COLUMNS, type UserRow } from './rows.ts';
import { walletUserPrincipal } from './wallet-users.ts';

/** The initial description of the server-held key each user's account is used through (the key is found by its browser_app flag; the owner may rename it). */
export const BROWSER_KEY_DESCRIPTION = 'browser app';

export const PASSWORD_MIN = 10;
export const PASSWORD_MAX = 200;
export const DISPLAY_NAME_MAX = 80;
export const EMAIL_MAX = 254;

export { publicUser, toUser, USER_COLUMNS } from './rows.ts';
export type { ActiveTeam, PublicUser, TeamRole, User, UserRow, UserWallet } from './rows.ts';

const EMAIL_SHAPE = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;

/** Trimmed and lowercased, or 400. */
export function normaliseEmail(email: unknown): string {
  if (typeof email !== 'string') throw new ApiError('INVALID_REQUEST', 'Email is required', { param: 'email' });
  const e = email.trim().toLowerCase();
  if (!e || e.length > EMAIL_MAX || !EMAIL_SHAPE.test(e)) throw new ApiError('INVALID_REQUEST', 'Enter a valid email address', { param: 'email' });
  return e;
}

/** The password if it meets the length rules, else 400 naming `param`. */
export function checkPassword(password: unknown, param = 'password'): string {
  if (typeof password !== 'string') throw new ApiError('INVALID_REQUEST', 'Password is required', { param });
  const n = [...password].length;
  if (n < PASSWORD_MIN || n > PASSWORD_MAX) throw new ApiError('INVALID_REQUEST', `Password must be ${PASSWORD_MIN}–${PASSWORD_MAX} characters`, { param });
  return password;
}

// C0/C1 controls and the bidirectional overrides/isolates (which can disguise a name).
const CONTROL = /[\p{Cc}\u200E\u200F\u202A-\u202E\u2066-\u2069]/gu;

export function normaliseDisplayName(name: unknown): string {
  if (name === undefined || name === null) return '';
  if (typeof name !== 'string') throw new ApiError('INVALID_REQUEST', 'Display name must be text', { param: 'displayName' });
  const clean = name.replace(CONTROL, '').trim();
  if ([...clean].length > DISPLAY_NAME_MAX)
    throw new ApiError('INVALID_REQUEST', `Display name must be at most ${DISPLAY_NAME_MAX} characters`, { param: 'displayName' });
  return clean;
}

const DUPLICATE = 'An account with this email already exists';
const BAD_CREDENTIALS = 'Incorrect email or password';

function isUniqueViolation(e: unknown): boolean {
  const err = e as { code?: unknown; errcode?: unknown; message?: unknown };
  if (err?.code === '23505') return true; // PostgreSQL unique_violation
  if (err?.errcode === 2067 || err?.errcode === 1555) return true; // SQLITE_CONSTRAINT_UNIQUE / _PRIMARYKEY
  return typeof err?.message === 'string' && err.message.includes('UNIQUE constraint failed');
}

export interface SignUpInput {
  email: unknown;
  password: unknown;
  displayName?: unknown;
}

/**
 * Creates a user with its own account and server-held INFERENCE key, all in one transaction. `operator`: the app's
 * sign-up says whether this user asked to become the operator with the setup token (operator-setup.ts); it becomes
 * the operator only while there is none. Without the option (the CLI, tests) the first email user becomes it. The
 * check and the insert are serialised (SQLite: BEGIN IMMEDIATE; PostgreSQL: a table lock), so two racing sign-ups
 * cannot both be admin, and a racing duplicate email gets the same clean 400.
 */
export async function signUp(store: Store, input: SignUpInput, opts: { operator?: boolean } = {}): Promise<{ user: User; accountId: string }> {
  const email = normaliseEmail(input.email);
  const password = checkPassword(input.password);
  const displayName = normaliseDisplayName(input.displayName);
  return createUser(store, { email, passwordHash: await hash(password), displayName }, opts);
}

/**
 * A user whose email a single sign-on provider verified (lib/users/oidc.ts): no password (the empty hash matches
 * none), the address already verified, never the operator.
 */
export async function signUpVerified(store: Store, input: { email: unknown; displayName?: unknown }, now = Date.now()) {
  const email = normaliseEmail(input.email);
  return createUser(store, { email, passwordHash: '', displayName: normaliseDisplayName(input.displayName), emailVerifiedAt: now }, { operator: false });
}

async function createUser(
  store: Store,
  input: { email: string; passwordHash: string; displayName: string; emailVerifiedAt?: number },
  opts: { operator?: boolean },
): Promise<{ user: User; accountId: string }> {
  const { email, passwordHash, displayName } = input;
  try {
    const user = await store.tx(async (q) => {
      if (store.kind === 'postgres') await q.run('LOCK TABLE users IN SHARE ROW EXCLUSIVE MODE');
      if (await q.get('SELECT id FROM users WHERE email = $1', [email])) throw new ApiError('INVALID_REQUEST', DUPLICATE, { param: 'email' });
      // Wallet users never become admin, so they do not count.
      const isAdmin =
        opts.operator === undefined
          ? Number((await q.get<{ n: number }>('SELECT COUNT(*) AS n FROM users WHERE wallet_id IS NULL'))?.n ?? 0) === 0
          : opts.operator && !(await q.get('SELECT id FROM users WHERE is_admin = TRUE AND wallet_id IS NULL LIMIT 1'));
      const txStore = storeInTx(store, q);
      const account = await createAccount(txStore, email.slice(0, 200));
      await accountKeys(txStore, account.id).create({ type: 'INFERENCE', description: BROWSER_KEY_DESCRIPTION, browserApp: true });
      const u: User = {
        id: randomUUID(),
        email,
        displayName,
        isAdmin,
        accountId: account.id,
        personalAccountId: account.id,
        team: null,
        createdAt: Date.now(),
        wallet: null,
        linkedWallet: null,
      };
      await q.run(
        'INSERT INTO users (id, email, password_hash, display_name, is_admin, account_id, created_at, email_verified_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)',
        [u.id, u.email, passwordHash, u.displayName, u.isAdmin, u.accountId, u.createdAt, input.emailVerifiedAt ?? null],
      );
      return u;
    });
    return { user, accountId: user.accountId };
  } catch (e) {
    if (isUniqueViolation(e)) throw new ApiError('INVALID_REQUEST', DUPLICATE, { param: 'email' });
    throw e;
  }
}

// Verified against when the email is unknown, so the response time does not tell unknown emails from wrong passwords.
let dummyHash: Promise<string> | undefined;
/** The hash an unknown email's password is verified against: made by the same hash() as real passwords. */
export const dummyPasswordHash = (): Promise<string> => (dummyHash ??= hash('lagoon-dummy-password-for-timing'));

/** The user for this email and password, or 401 (the same error for an unknown email and a wrong password). */
export async function signIn(store: Store, input: { email: unknown; password: unknown }): Promise<User> {
  const email = typeof input.email === 'string' ? input.email.trim().toLowerCase() : '';
  const password = typeof input.password === 'string' ? input.password : '';
  const row = email
    ? await store.get<UserRow & { password_hash: string }>(`SELECT ${USER_COLUMNS}, u.password_hash FROM users u WHERE u.email = $1`, [email])
    : undefined;
  let ok = false;
  try {
    ok = await verify(row ? row.password_hash : await dummyPasswordHash(), password.length > PASSWORD_MAX * 4 ? '' : password);
  } catch {
    ok = false;
  }
  if (!row || !ok) throw new ApiError('AUTHENTICATION_FAILED', BAD_CREDENTIALS);
  return toUser(row);
}

export async function getUser(store: Store, id: string): Promise<User | undefined> {
  const row = await store.get<UserRow>(`SELECT ${USER_COLUMNS} FROM users u WHERE u.id = $1`, [id]);
  return row && toUser(row);
}

/**
 * The principal the app acts as for this user: the user's account and its server-held 'browser app' INFERENCE key,
 * read from the database (no secret involved); for a wallet user, the wallet's account and server-held key, as a
 * SIGN-IN-WITH-X request would run. 401 when that key has been revoked or has expired.
 */
export async function principalForUser(store: Store, user: User, now = Date.now()): Promise<Principal> {
  if (user.team) return teamMemberPrincipal(store, user, now);
  if (user.wallet) return walletUserPrincipal(store, user.wallet, now);
  // Cached as an API key's principal is (two reads per chat otherwise); a key change in this process clears it.
  return cachedPrincipal(
    store,
    `browser:${user.accountId}`,
    async () => {
      const account = await getAccount(store, user.accountId);
      const key = await accountKeys(store, user.accountId).browserKey(now);
      if (!account || !key) throw new ApiError('AUTHENTICATION_FAILED_INACTIVE_KEY', "This user's inference key is revoked or expired");
      return { accountId: account.id, accountTier: account.tier, keyId: key.id, keyType: key.type, key };
    },
    now,
  );
}

/**
 * In a team (the session switched to it), the app acts through the member's own server-held key of the team's
 * account: the team pays, the usage is the member's, and the metered call applies their cap and model list.
 */
async function teamMemberPrincipal(store: Store, user: User, now: number): Promise<Principal> {
  const team = user.team!;
  const account = await getAccount(store, team.accountId);
  const key = await accountKeys(store, team.accountId).browserKey(now, user.id);
  if (!account || !key) throw new ApiError('AUTHENTICATION_FAILED_INACTIVE_KEY', "This member's key of the team is revoked or expired");
  refuseDisabledAccount(account.disabledAt);
  return { accountId: account.id, accountTier: account.tier, keyId: key.id, keyType: key.type, key };
}

/**
 * A wallet-only user adds an email and password: the same user and account, now an email user whose linked wallet
 * is the one it signed up with (lib/users/wallet-link.ts), so both ways in reach one balance. Its chats get a
 * server-held browser key in the same account. The address is unverified until its mailed link is followed.
 */
export async function addEmailLogin(store: Store, user: User, input: { email?: unknown; password?: unknown }): Promise<User> {
  if (!user.wallet) throw new ApiError('INVALID_REQUEST', 'This account already has an email address');
  const wallet = user.wallet;
  const email = normaliseEmail(input.email);
  const passwordHash = await hash(checkPassword(input.password));
  try {
    await store.tx(async (q) => {
      if (await q.get('SELECT id FROM users WHERE email = $1', [email])) throw new ApiError('INVALID_REQUEST', DUPLICATE, { param: 'email' });
      const txStore = storeInTx(store, q);
      if (!(await accountKeys(txStore, user.accountId).browserKey(Date.now())))
        await accountKeys(txStore, user.accountId).create({ type: 'INFERENCE', description: BROWSER_KEY_DESCRIPTION, browserApp: true });
      const changed = await q.run(
        'UPDATE users SET email = $1, password_hash = $2, email_verified_at = NULL, linked_wallet_id = wallet_id, wallet_id = NULL WHERE id = $3 AND wallet_id = $4',
        [email, passwordHash, user.id, wallet.id],
      );
      if (changed !== 1) throw new ApiError('CONFLICT', 'This account changed meanwhile: reload and try again');
    });
  } catch (e) {
    if (isUniqueViolation(e)) throw new ApiError('INVALID_REQUEST', DUPLICATE, { param: 'email' });
    throw e;
  }
  const updated = await getUser(store, user.id);
  if (!updated) throw new Error(`user ${user.id} vanished`);
  return updated;
}
