// Single sign-on through one OpenID Connect provider, with openid-client: the authorization code flow with PKCE
// (S256), a state bound to the browser by a cookie and a nonce the ID token must carry; the ID token's signature,
// issuer, audience, expiry and nonce are checked by openid-client. The provider's discovery document is read once
// (at start, and again only after a failure) and cached.
//
// Who the sign-in reaches (ssoUser): the user already linked to the provider's (iss, sub); otherwise the user whose
// email the provider says is verified (email_verified: true) and whose email Lagoon verified too; otherwise, when
// LAGOON_OIDC_ALLOW_SIGNUP is on, a new user. An unverified email never reaches an existing account, and never makes
// one. A signed-in user may also link the provider from Settings (the identity then joins that user, whatever the
// email). The sign-in counts as the provider's authentication: Lagoon's own two-step code is not asked (the
// provider runs its own), and the session is not marked as begun with a second factor (LAGOON_OPERATOR_REQUIRE_2FA
// still needs the operator's code or passkey).
import { createHash, randomBytes } from 'node:crypto';
import * as oidc from 'openid-client';
import type { OidcConfig } from '../config.ts';
import type { Store } from '../db/store.ts';
import { log } from '../log.ts';
import { getUser, normaliseEmail, signUpVerified, type User, USER_COLUMNS, toUser, type UserRow } from './users.ts';

/** The path the provider sends the browser back to, under the public origin. */
export const SSO_CALLBACK_PATH = '/api/app/auth/sso/callback';
/** The cookie holding the state of a sign-on in progress (HttpOnly, SameSite=Lax: it must ride the provider's redirect back). */
export const SSO_STATE_COOKIE = 'lagoon_sso';
const LOGIN_TTL_MS = 10 * 60_000;

/** Why a sign-on did not end in a session; the sign-in page words each (components/auth/sso-errors.ts). */
export type SsoRefusal = 'unavailable' | 'state' | 'failed' | 'no_email' | 'unverified' | 'domain' | 'signup_off' | 'link_unverified' | 'taken' | 'disabled';

export class SsoRefused extends Error {
  readonly reason: SsoRefusal;
  constructor(reason: SsoRefusal, detail?: string) {
    super(detail ?? reason);
    this.reason = reason;
  }
}

export interface SsoClaims {
  issuer: string;
  subject: string;
  email: string | undefined;
  emailVerified: boolean;
  name: string | undefined;
}

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

export class OidcClient {
  private discovered: Promise<oidc.Configuration> | undefined;
  readonly settings: OidcConfig;
  private readonly publicOrigin: () => string;

  /** `publicOrigin`: read at each use (the configuration's, which a test harness learns after start). */
  constructor(settings: OidcConfig, publicOrigin: () => string) {
    this.settings = settings;
    this.publicOrigin = publicOrigin;
  }

  /** Where the provider sends the browser back: registered with the provider as this client's redirect URI. */
  get redirectUri(): string {
    return new URL(SSO_CALLBACK_PATH, this.publicOrigin()).toString();
  }

  /** The provider's configuration, discovered once; a failed discovery is forgotten, so the next use tries again. */
  configuration(): Promise<oidc.Configuration> {
    if (!this.discovered) {
      const s = this.settings;
      const issuer = new URL(s.issuer);
      const auth = s.clientSecret ? oidc.ClientSecretBasic(s.clientSecret) : oidc.None();
      this.discovered = oidc
        .discovery(issuer, s.clientId, s.clientSecret ? { client_secret: s.clientSecret } : undefined, auth, {
          // Plain HTTP only for a provider on loopback (lib/config.ts refuses it elsewhere).
          ...(issuer.protocol === 'http:' ? { execute: [oidc.allowInsecureRequests] } : {}),
          timeout: 10,
        })
        .catch((e) => {
          this.discovered = undefined;
          throw e;
        });
    }
    return this.discovered;
  }

  /** Starts a sign-on: the provider's authorization URL and the state for the browser's cookie. */
  async begin(store: Store, opts: { next: string; linkUserId?: string }, now = Date.now()): Promise<{ url: string; state: string }> {
    let config: oidc.Configuration;
    try {
      config = await this.configuration();
    } catch (e) {
      log.warn({ err: e, issuer: this.settings.issuer }, 'single sign-on: discovery failed');
      throw new SsoRefused('unavailable');
    }
    const state = randomBytes(32).toString('base64url');
    const nonce = oidc.randomNonce();
    const verifier = oidc.randomPKCECodeVerifier();
    await store.run('DELETE FROM sso_logins WHERE expires_at <= $1', [now]);
    await store.run('INSERT INTO sso_logins (state_hash, nonce, code_verifier, next_path, link_user_id, expires_at) VALUES ($1, $2, $3, $4, $5, $6)', [
      sha256(state),
      nonce,
      verifier,
      opts.next,
      opts.linkUserId ?? null,
      now + LOGIN_TTL_MS,
    ]);
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: this.redirectUri,
      scope: 'openid email profile',
      state,
      nonce,
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });
    return { url: url.toString(), state };
  }

  /**
   * Finishes a sign-on from the provider's redirect: the state must equal the cookie's and name a sign-on this server
   * started (used once), the code is exchanged with the PKCE verifier, and the ID token must carry the nonce.
   */
  async finish(
    store: Store,
    query: URLSearchParams,
    cookieState: string | undefined,
    now = Date.now(),
  ): Promise<{ claims: SsoClaims; next: string; linkUserId: string | null }> {
    const state = query.get('state');
    if (!state || !cookieState || state !== cookieState) throw new SsoRefused('state', 'the state does not match this browser');
    const row = await store.get<{ nonce: string; code_verifier: string; next_path: string; link_user_id: string | null; expires_at: number }>(
      'SELECT nonce, code_verifier, next_path, link_user_id, expires_at FROM sso_logins WHERE state_hash = $1',
      [sha256(state)],
    );
    // Single use: whoever deletes the row finishes the sign-on.
    if (!row || (await store.run('DELETE FROM sso_logins WHERE state_hash = $1', [sha256(state)])) !== 1 || Number(row.expires_at) <= now) {
      throw new SsoRefused('state', 'no sign-on in progress has this state');
    }
    if (query.get('error')) throw new SsoRefused('failed', `the provider answered ${query.get('error')}: ${query.get('error_description') ?? ''}`);
    const config = await this.configuration();
    const current = new URL(this.redirectUri);
    current.search = query.toString();
    let claims: oidc.IDToken | undefined;
    try {
      const tokens = await oidc.authorizationCodeGrant(config, current, {
        pkceCodeVerifier: row.code_verifier,
        expectedState: state,
        expectedNonce: row.nonce,
        idTokenExpected: true,
      });
      claims = tokens.claims();
    } catch (e) {
      throw new SsoRefused('failed', (e as Error).message);
    }
    if (!claims) throw new SsoRefused('failed', 'no ID token');
    return {
      claims: {
        issuer: claims.iss,
        subject: claims.sub,
        email: typeof claims.email === 'string' ? claims.email : undefined,
        emailVerified: claims.email_verified === true,
        name: typeof claims.name === 'string' ? claims.name : undefined,
      },
      next: row.next_path,
      linkUserId: row.link_user_id,
    };
  }
}

async function linkedUser(store: Store, c: SsoClaims): Promise<User | undefined> {
  const row = await store.get<{ user_id: string }>('SELECT user_id FROM user_identities WHERE issuer = $1 AND subject = $2', [c.issuer, c.subject]);
  return row ? getUser(store, row.user_id) : undefined;
}

async function link(store: Store, c: SsoClaims, userId: string, now: number): Promise<void> {
  await store.run(
    'INSERT INTO user_identities (issuer, subject, user_id, email, created_at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (issuer, subject) DO NOTHING',
    [c.issuer, c.subject, userId, c.email ?? '', now],
  );
  const owner = await store.get<{ user_id: string }>('SELECT user_id FROM user_identities WHERE issuer = $1 AND subject = $2', [c.issuer, c.subject]);
  if (owner?.user_id !== userId) throw new SsoRefused('taken', 'this identity is linked to another user');
}

/** The email the provider verified, or a refusal; checked against the allowed domains. */
function verifiedEmail(c: SsoClaims, settings: OidcConfig): string {
  if (!c.email) throw new SsoRefused('no_email');
  let email: string;
  try {
    email = normaliseEmail(c.email);
  } catch {
    throw new SsoRefused('no_email', 'the email claim is not an address');
  }
  if (settings.emailDomains.length && !settings.emailDomains.includes(email.slice(email.lastIndexOf('@') + 1))) throw new SsoRefused('domain');
  if (!c.emailVerified) throw new SsoRefused('unverified');
  return email;
}

/**
 * The user this sign-on reaches (see the header), `created` when it made one (the caller applies the starting
 * credit, once, as for an email sign-up).
 */
export async function ssoUser(
  store: Store,
  settings: OidcConfig,
  c: SsoClaims,
  linkUserId: string | null,
  now = Date.now(),
): Promise<{ user: User; created: boolean }> {
  const known = await linkedUser(store, c);
  if (linkUserId) {
    // Linking from Settings: the signed-in user proved who they are to Lagoon, and now to the provider.
    if (known && known.id !== linkUserId) throw new SsoRefused('taken');
    const user = await getUser(store, linkUserId);
    if (!user || user.wallet) throw new SsoRefused('failed', 'only an email user can link single sign-on');
    if (!known) await link(store, c, user.id, now);
    return { user, created: false };
  }
  if (known) {
    // The allowed domains apply to every sign-on, so narrowing them shuts out identities linked before.
    if (settings.emailDomains.length) verifiedEmail(c, settings);
    return { user: known, created: false };
  }
  const email = verifiedEmail(c, settings);
  const row = await store.get<UserRow & { email_verified_at: number | null }>(
    `SELECT ${USER_COLUMNS}, u.email_verified_at FROM users u WHERE u.email = $1 AND u.wallet_id IS NULL`,
    [email],
  );
  if (row) {
    // Lagoon must have verified the address too: otherwise whoever typed it at sign-up (perhaps not its owner, who
    // may be signing on now) would share the account. The owner can sign in with the password and link from Settings.
    if (row.email_verified_at === null || row.email_verified_at === undefined) throw new SsoRefused('link_unverified');
    const user = toUser(row);
    await link(store, c, user.id, now);
    return { user, created: false };
  }
  if (!settings.allowSignUp) throw new SsoRefused('signup_off');
  const { user } = await signUpVerified(store, { email, displayName: c.name?.slice(0, 80) }, now);
  await link(store, c, user.id, now);
  return { user, created: true };
}

/** The identities linked to a user, for Settings. */
export async function userIdentities(store: Store, userId: string): Promise<{ issuer: string; email: string; createdAt: number }[]> {
  const rows = await store.all<{ issuer: string; email: string; created_at: number }>(
    'SELECT issuer, email, created_at FROM user_identities WHERE user_id = $1 ORDER BY created_at',
    [userId],
  );
  return rows.map((r) => ({ issuer: r.issuer, email: r.email, createdAt: Number(r.created_at) }));
}
