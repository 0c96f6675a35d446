// The ways a user can sign in: a password, a wallet (their own, or one linked to an email user), single sign-on
// identities and passkeys. Settings lists them, and removing one (unlinking the wallet, deleting a passkey) is refused
// when it is the last: a user with no way in would have lost the account and its balance.
import { ApiError } from '../api/errors.ts';
import type { Queryable } from '../db/store.ts';
import type { User } from './rows.ts';

export interface SignInMethodCounts {
  password: boolean;
  wallet: boolean;
  sso: number;
  passkeys: number;
}

export type SignInMethod = 'wallet' | 'passkey';

export async function signInMethodCounts(q: Queryable, user: User): Promise<SignInMethodCounts> {
  // One query after another: inside a transaction they share one connection.
  const pw = await q.get<{ password_hash: string }>('SELECT password_hash FROM users WHERE id = $1', [user.id]);
  const sso = await q.get<{ n: number | string }>('SELECT COUNT(*) AS n FROM user_identities WHERE user_id = $1', [user.id]);
  const passkeys = await q.get<{ n: number | string }>('SELECT COUNT(*) AS n FROM passkeys WHERE user_id = $1', [user.id]);
  return {
    // An empty hash (a single sign-on newcomer, a wallet user) matches no password.
    password: Boolean(pw?.password_hash) && !user.wallet,
    wallet: Boolean(user.wallet ?? user.linkedWallet),
    sso: Number(sso?.n ?? 0),
    passkeys: Number(passkeys?.n ?? 0),
  };
}

const total = (c: SignInMethodCounts) => Number(c.password) + Number(c.wallet) + c.sso + c.passkeys;

/** Refuses (400) to remove `what` when nothing else would be left to sign in with. */
export async function keepOneSignInMethod(q: Queryable, user: User, what: SignInMethod): Promise<void> {
  const c = await signInMethodCounts(q, user);
  const removed = what === 'wallet' ? Number(c.wallet) : Math.min(1, c.passkeys);
  if (total(c) - removed > 0) return;
  throw new ApiError(
    'INVALID_REQUEST',
    `This ${what === 'wallet' ? 'wallet' : 'passkey'} is your only way to sign in: add a password, a passkey or another sign-in method first`,
  );
}
