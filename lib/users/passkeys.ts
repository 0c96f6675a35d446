// Passkeys (WebAuthn, through @simplewebauthn/server): a signed-in email user registers one (a discoverable
// credential, so signing in needs no email), and anyone signs in with one alone: a passkey is possession and (with
// user verification) a PIN or biometric in one, so it is a whole sign-in, not a second step. The relying party is
// this server's public origin (LAGOON_PUBLIC_URL): its host is the RP id. Challenges are single use and short-lived.
import { randomBytes } from 'node:crypto';
import {
  type AuthenticationResponseJSON,
  generateAuthenticationOptions,
  generateRegistrationOptions,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from '@simplewebauthn/server';
import { ApiError } from '../api/errors.ts';
import type { Store } from '../db/store.ts';
import type { User } from './users.ts';
import { keepOneSignInMethod } from './sign-in-methods.ts';

const CHALLENGE_TTL_MS = 5 * 60_000;
const NAME_MAX = 60;
const RP_NAME = 'Lagoon';

export interface RelyingParty {
  /** The page origin the browser reports (scheme://host:port). */
  origin: string;
  /** The RP id: the origin's host name. */
  id: string;
}

export const relyingParty = (origin: string): RelyingParty => ({ origin, id: new URL(origin).hostname });

export interface PasskeyInfo {
  id: string;
  name: string;
  createdAt: number;
  lastUsedAt: number | null;
}

interface PasskeyRow {
  id: string;
  user_id: string;
  public_key: string;
  counter: number | string;
  transports: string;
  name: string;
  created_at: number | string;
  last_used_at: number | string | null;
}

const info = (r: PasskeyRow): PasskeyInfo => ({
  id: r.id,
  name: r.name,
  createdAt: Number(r.created_at),
  lastUsedAt: r.last_used_at === null ? null : Number(r.last_used_at),
});

const INVALID = 'The passkey could not be verified. Try again.';

async function saveChallenge(store: Store, challenge: string, kind: 'register' | 'sign-in', userId: string | null, now: number): Promise<void> {
  await store.run('DELETE FROM webauthn_challenges WHERE expires_at <= $1', [now]);
  await store.run('INSERT INTO webauthn_challenges (challenge, kind, user_id, expires_at) VALUES ($1, $2, $3, $4)', [
    challenge,
    kind,
    userId,
    now + CHALLENGE_TTL_MS,
  ]);
}

/** Claims (deletes) a live challenge of this kind (and user); true once per challenge. */
async function claimChallenge(store: Store, challenge: string, kind: 'register' | 'sign-in', userId: string | null, now: number): Promise<boolean> {
  const n =
    userId === null
      ? await store.run('DELETE FROM webauthn_challenges WHERE challenge = $1 AND kind = $2 AND user_id IS NULL AND expires_at > $3', [challenge, kind, now])
      : await store.run('DELETE FROM webauthn_challenges WHERE challenge = $1 AND kind = $2 AND user_id = $3 AND expires_at > $4', [
          challenge,
          kind,
          userId,
          now,
        ]);
  return n === 1;
}

export async function listPasskeys(store: Store, userId: string): Promise<PasskeyInfo[]> {
  return (await store.all<PasskeyRow>('SELECT * FROM passkeys WHERE user_id = $1 ORDER BY created_at', [userId])).map(info);
}

/** Registration options for a signed-in email user (their existing passkeys excluded, so one device registers once). */
export async function registrationOptions(store: Store, rp: RelyingParty, user: User, now = Date.now()): Promise<PublicKeyCredentialCreationOptionsJSON> {
  if (user.wallet) throw new ApiError('INVALID_REQUEST', 'This user signs in with a wallet, which is its own proof');
  const existing = await store.all<PasskeyRow>('SELECT * FROM passkeys WHERE user_id = $1', [user.id]);
  const options = await generateRegistrationOptions({
    rpName: RP_NAME,
    rpID: rp.id,
    userName: user.email,
    userDisplayName: user.displayName || user.email,
    userID: new TextEncoder().encode(user.id),
    attestationType: 'none',
    excludeCredentials: existing.map((p) => ({ id: p.id, transports: p.transports ? p.transports.split(',') : undefined })),
    authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
  });
  await saveChallenge(store, options.challenge, 'register', user.id, now);
  return options;
}

/** Verifies the browser's registration answer and stores the passkey. */
export async function registerPasskey(store: Store, rp: RelyingParty, user: User, response: unknown, name: unknown, now = Date.now()): Promise<PasskeyInfo> {
  if (!response || typeof response !== 'object') throw new ApiError('INVALID_REQUEST', INVALID, { param: 'response' });
  let verified: Awaited<ReturnType<typeof verifyRegistrationResponse>>;
  try {
    verified = await verifyRegistrationResponse({
      response: response as RegistrationResponseJSON,
      expectedChallenge: (c) => claimChallenge(store, c, 'register', user.id, now),
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      requireUserVerification: true,
    });
  } catch {
    throw new ApiError('INVALID_REQUEST', INVALID, { param: 'response' });
  }
  if (!verified.verified) throw new ApiError('INVALID_REQUEST', INVALID, { param: 'response' });
  const { credential } = verified.registrationInfo;
  const label =
    (typeof name === 'string'
      ? name
          .replace(/\p{Cc}/gu, '')
          .trim()
          .slice(0, NAME_MAX)
      : '') || 'Passkey';
  const row: PasskeyRow = {
    id: credential.id,
    user_id: user.id,
    public_key: Buffer.from(credential.publicKey).toString('base64url'),
    counter: credential.counter,
    transports: (credential.transports ?? []).join(','),
    name: label,
    created_at: now,
    last_used_at: null,
  };
  try {
    await store.run('INSERT INTO passkeys (id, user_id, public_key, counter, transports, name, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)', [
      row.id,
      row.user_id,
      row.public_key,
      row.counter,
      row.transports,
      row.name,
      now,
    ]);
  } catch {
    throw new ApiError('CONFLICT', 'This passkey is already registered');
  }
  return info(row);
}

/** Removes one of the user's passkeys, never the last way to sign in (a passkey may be the only one). */
export async function deletePasskey(store: Store, user: User, id: string): Promise<void> {
  await store.tx(async (q) => {
    if (!(await q.get('SELECT id FROM passkeys WHERE id = $1 AND user_id = $2', [id, user.id]))) throw new ApiError('NOT_FOUND', 'Passkey not found');
    await keepOneSignInMethod(q, user, 'passkey');
    await q.run('DELETE FROM passkeys WHERE id = $1 AND user_id = $2', [id, user.id]);
  });
}

/** Options for signing in with any passkey of this site (discoverable credentials: no email asked). */
export async function signInOptions(store: Store, rp: RelyingParty, now = Date.now()): Promise<PublicKeyCredentialRequestOptionsJSON> {
  const options = await generateAuthenticationOptions({ rpID: rp.id, userVerification: 'required', challenge: randomBytes(32) });
  await saveChallenge(store, options.challenge, 'sign-in', null, now);
  return options;
}

/** Verifies a passkey sign-in; resolves to the user id (401 for an unknown passkey or a failed check). */
export async function verifyPasskeySignIn(store: Store, rp: RelyingParty, response: unknown, now = Date.now()): Promise<string> {
  const failed = new ApiError('AUTHENTICATION_FAILED', 'This passkey could not sign you in. Try again, or use your password.');
  const id = response && typeof response === 'object' ? (response as { id?: unknown }).id : undefined;
  if (typeof id !== 'string' || id.length > 1024) throw failed;
  const row = await store.get<PasskeyRow>('SELECT * FROM passkeys WHERE id = $1', [id]);
  if (!row) throw failed;
  let verified: Awaited<ReturnType<typeof verifyAuthenticationResponse>>;
  try {
    verified = await verifyAuthenticationResponse({
      response: response as AuthenticationResponseJSON,
      expectedChallenge: (c) => claimChallenge(store, c, 'sign-in', null, now),
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      credential: {
        id: row.id,
        publicKey: new Uint8Array(Buffer.from(row.public_key, 'base64url')),
        counter: Number(row.counter),
        transports: row.transports ? (row.transports.split(',') as never) : undefined,
      },
      requireUserVerification: true,
    });
  } catch {
    throw failed;
  }
  if (!verified.verified) throw failed;
  await store.run('UPDATE passkeys SET counter = $2, last_used_at = $3 WHERE id = $1', [row.id, verified.authenticationInfo.newCounter, now]);
  return row.user_id;
}
