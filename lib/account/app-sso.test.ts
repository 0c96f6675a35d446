// Single sign-on against a real OpenID Connect provider (oidc-provider on loopback, e2e/support/oidc.ts), on SQLite
// and PostgreSQL: the start sends the browser to the provider with PKCE, state and nonce; the callback signs in only
// when the state matches the browser's cookie and the ID token carries the nonce; a verified email links to an
// existing (Lagoon-verified) account, an unverified one never does, and sign-up follows LAGOON_OIDC_ALLOW_SIGNUP.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { caller, type Result } from '../../e2e/support/app-requests.ts';
import { startHarness } from '../../e2e/support/harness.ts';
import { loginAt, startOidcProvider } from '../../e2e/support/oidc.ts';
import { createTestDatabase } from '../../e2e/support/pg.ts';
import { BACKENDS } from '../../e2e/support/stores.ts';
import { signUp } from '../users/users.ts';

let n = 0;

async function world(backend: (typeof BACKENDS)[number]) {
  let databaseUrl: string | undefined;
  let drop: (() => Promise<void>) | undefined;
  if (backend === 'postgres') ({ url: databaseUrl, drop } = await createTestDatabase());
  const idp = await startOidcProvider();
  const env: Record<string, string> = {
    LAGOON_OIDC_ISSUER: idp.issuer,
    LAGOON_OIDC_CLIENT_ID: idp.clientId,
    LAGOON_OIDC_CLIENT_SECRET: idp.clientSecret,
    LAGOON_OIDC_NAME: 'Test IdP',
    LAGOON_OIDC_ALLOW_SIGNUP: '1',
    LAGOON_NEW_USER_USD: '2',
    ...(databaseUrl ? { LAGOON_SECRETS_KEY: crypto.randomBytes(32).toString('hex') } : {}),
  };
  const h = await startHarness({ app: true, databaseUrl, env });
  const redirectUri = `${h.svc.config.wallet.publicOrigin}/api/app/auth/sso/callback`;
  idp.start(redirectUri);
  const close = async () => {
    await h.close();
    await idp.close();
    await drop?.();
  };
  return { h, idp, redirectUri, routes: h.app!.routes, call: caller(h.svc.store), close };
}

const stateCookieOf = (r: Result): string => {
  const c = r.headers.getSetCookie().find((x) => x.startsWith('lagoon_sso='));
  assert.ok(c, 'the start sets the state cookie');
  assert.match(c, /HttpOnly/);
  assert.match(c, /SameSite=Lax/);
  return c.split(';')[0];
};

for (const backend of BACKENDS)
  describe(`single sign-on with OpenID Connect (${backend})`, () => {
    let w: Awaited<ReturnType<typeof world>>;
    before(async () => {
      w = await world(backend);
    });
    after(() => w?.close());

    async function start(next = '/c/next') {
      const r = await w.call(w.routes.ssoStart, `/auth/sso/start?next=${encodeURIComponent(next)}`);
      assert.equal(r.status, 303, r.text);
      const url = new URL(r.headers.get('location') ?? '');
      assert.equal(url.origin, w.idp.issuer);
      assert.equal(url.searchParams.get('code_challenge_method'), 'S256');
      assert.ok(url.searchParams.get('code_challenge'));
      assert.ok(url.searchParams.get('nonce'));
      assert.equal(url.searchParams.get('redirect_uri'), w.redirectUri);
      return { url, cookie: stateCookieOf(r) };
    }
    async function callback(back: URL, cookie: string | undefined) {
      return w.call(w.routes.ssoCallback, `/auth/sso/callback${back.search}`, cookie ? { browser: { ip: '192.0.2.7', cookie } } : {});
    }
    const sessionCookie = (r: Result) => r.headers.getSetCookie().find((c) => c.startsWith('lagoon_session=') && !c.includes('Max-Age=0'));
    const where = (r: Result) => new URL(r.headers.get('location') ?? '', 'http://x');

    async function signOn(login: string, next = '/c/next') {
      const { url, cookie } = await start(next);
      const back = await loginAt(url.toString(), login, w.redirectUri);
      return callback(back, cookie);
    }
    const me = async (r: Result) => {
      const c = sessionCookie(r);
      assert.ok(c, 'a session cookie');
      const m = await w.call(w.routes.me, '/auth/me', { browser: { ip: '192.0.2.7', cookie: c.split(';')[0] } });
      assert.equal(m.status, 200, m.text);
      return m.json.user as { id: string; email: string };
    };

    test('the sign-in page learns the button', async () => {
      const r = await w.call(w.routes.ssoInfo, '/auth/sso');
      assert.deepEqual(r.json, { enabled: true, name: 'Test IdP' });
    });

    test('a new person signs up through the provider, once; signing on again reaches the same user', async () => {
      const login = `new${++n}`;
      const r = await signOn(login);
      assert.equal(r.status, 303, r.text);
      assert.equal(where(r).pathname, '/c/next');
      const user = await me(r);
      assert.equal(user.email, `${login}@example.test`);
      const row = await w.h.svc.store.get<{ account_id: string; email_verified_at: number | null; password_hash: string }>(
        'SELECT account_id, email_verified_at, password_hash FROM users WHERE id = $1',
        [user.id],
      );
      assert.ok(row?.email_verified_at, 'the provider verified the address');
      assert.equal(row?.password_hash, '', 'no password: the provider signs them in');
      const acct = await w.h.svc.store.get<{ usd: number | string }>('SELECT usd FROM accounts WHERE id = $1', [row?.account_id]);
      assert.equal(Number(acct?.usd), 2_000_000, 'the starting credit, once');
      const again = await signOn(login);
      assert.equal((await me(again)).id, user.id);
      const acct2 = await w.h.svc.store.get<{ usd: number | string }>('SELECT usd FROM accounts WHERE id = $1', [row?.account_id]);
      assert.equal(Number(acct2?.usd), 2_000_000, 'no second starting credit');
    });

    test('a state that is not the browser’s, or used twice, signs no one in', async () => {
      const { url, cookie } = await start();
      const back = await loginAt(url.toString(), `state${++n}`, w.redirectUri);
      // Another browser (no cookie, or a different state in it) holding the code gets nothing.
      for (const c of [undefined, 'lagoon_sso=someone-elses-state']) {
        const r = await callback(back, c);
        assert.equal(r.status, 303);
        assert.equal(where(r).pathname, '/sign-in');
        assert.equal(where(r).searchParams.get('sso_error'), 'state');
        assert.equal(sessionCookie(r), undefined);
      }
      const ok = await callback(back, cookie);
      assert.ok(sessionCookie(ok), ok.headers.get('location') ?? '');
      const replay = await callback(back, cookie);
      assert.equal(where(replay).searchParams.get('sso_error'), 'state', 'a state works once');
      assert.equal(sessionCookie(replay), undefined);
    });

    test('an ID token without the nonce this server sent is refused', async () => {
      const { url, cookie } = await start();
      url.searchParams.set('nonce', 'a-nonce-this-server-never-made');
      const back = await loginAt(url.toString(), `nonce${++n}`, w.redirectUri);
      const r = await callback(back, cookie);
      assert.equal(where(r).searchParams.get('sso_error'), 'failed');
      assert.equal(sessionCookie(r), undefined);
    });

    test('a verified email links to an existing verified account; an unverified one never does', async () => {
      const email = `existing${++n}@example.test`;
      const { user } = await signUp(w.h.svc.store, { email, password: 'correct horse battery' });
      const login = `existing-login${n}`;
      // The provider says the address is not verified: no link, and no account is made for it either.
      w.idp.accounts.set(login, { email, email_verified: false });
      const unverified = await signOn(login);
      assert.equal(where(unverified).searchParams.get('sso_error'), 'unverified');
      assert.equal(sessionCookie(unverified), undefined);
      // Verified by the provider, but Lagoon never verified who typed it at sign-up: no link either.
      w.idp.accounts.set(login, { email, email_verified: true });
      const notHere = await signOn(login);
      assert.equal(where(notHere).searchParams.get('sso_error'), 'link_unverified');
      assert.equal(Number((await w.h.svc.store.get<{ n: number }>('SELECT COUNT(*) AS n FROM user_identities WHERE user_id = $1', [user.id]))?.n), 0);
      await w.h.svc.store.run('UPDATE users SET email_verified_at = $1 WHERE id = $2', [Date.now(), user.id]);
      const linked = await signOn(login);
      assert.equal((await me(linked)).id, user.id, 'the same user and account');
    });

    test('with sign-up off, a person without an account is refused', async () => {
      const oidc = w.h.svc.config.app.oidc;
      assert.ok(oidc);
      oidc.allowSignUp = false;
      try {
        const login = `nobody${++n}`;
        const r = await signOn(login);
        assert.equal(where(r).searchParams.get('sso_error'), 'signup_off');
        assert.equal(sessionCookie(r), undefined);
        assert.equal(await w.h.svc.store.get('SELECT id FROM users WHERE email = $1', [`${login}@example.test`]), undefined);
      } finally {
        oidc.allowSignUp = true;
      }
    });

    test('only allowed email domains sign in', async () => {
      const oidc = w.h.svc.config.app.oidc;
      assert.ok(oidc);
      oidc.emailDomains = ['allowed.test'];
      try {
        const r = await signOn(`domain${++n}`);
        assert.equal(where(r).searchParams.get('sso_error'), 'domain');
        w.idp.accounts.set(`ok${n}`, { email: `ok${n}@allowed.test`, email_verified: true });
        assert.ok(sessionCookie(await signOn(`ok${n}`)));
      } finally {
        oidc.emailDomains = [];
      }
    });

    test('the next path stays on this site', async () => {
      const r = await w.call(w.routes.ssoStart, `/auth/sso/start?next=${encodeURIComponent('//evil.example/x')}`);
      const back = await loginAt(r.headers.get('location') ?? '', `next${++n}`, w.redirectUri);
      const done = await callback(back, stateCookieOf(r));
      assert.equal(done.headers.get('location'), '/');
    });
  });
