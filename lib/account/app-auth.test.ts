// The app's account routes on a real service: sign-up/in/out, cookies, CSRF and Origin checks, brute-force and
// sign-up limits, starting credit. Every response is scanned for key material.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Harness, startHarness } from '../../e2e/support/harness.ts';
import { loadConfig } from '../config.ts';
import type { AppDeps } from '../http/app-deps.ts';
import { authRoutes } from './app-auth.ts';
import { operatorSetupToken } from '../users/operator-setup.ts';
import { catalogueRoutes } from '../catalogue/app-routes.ts';
import { conversationRoutes } from '../conversations/app-routes.ts';
import { type Browser, caller, cookieFrom, ORIGIN } from '../../e2e/support/app-requests.ts';

let h: Harness;
let call: ReturnType<typeof caller>;
const deps = (env: Record<string, string> = {}): AppDeps => ({ svc: h.svc, app: loadConfig(env).app });
let auth: ReturnType<typeof authRoutes>;

const password = 'correct horse battery';
let n = 0;
const email = () => `user${++n}-${Date.now()}@example.com`;

async function signUp(routes = auth, e = email(), ip = `198.51.100.${n % 250}`): Promise<Browser & { email: string; userId: string; isAdmin: boolean }> {
  const r = await call(routes.signUp, '/auth/sign-up', { method: 'POST', body: { email: e, password, displayName: 'Test' }, browser: { ip } });
  assert.equal(r.status, 201, r.text);
  return { ip, email: e, cookie: cookieFrom(r), csrf: r.json.csrfToken, userId: r.json.user.id, isAdmin: r.json.user.isAdmin };
}

before(async () => {
  h = await startHarness();
  call = caller(h.svc.store);
  auth = authRoutes(deps());
});
after(() => h.close());

describe('sign-up, me, sign-out', () => {
  test('only the setup token makes the operator; a session cookie that is HttpOnly, SameSite=Lax, Path=/ and not Secure over http', async () => {
    // The first to sign up is an ordinary user (a freshly exposed server no longer belongs to whoever comes first).
    const first = await signUp();
    assert.equal(first.isAdmin, false);
    const wrong = await call(auth.signUp, '/auth/sign-up', {
      method: 'POST',
      body: { email: email(), password, setupToken: 'x'.repeat(32) },
      browser: { ip: '203.0.113.9' },
    });
    assert.deepEqual([wrong.status, wrong.json.code], [403, 'FORBIDDEN']);
    const token = await operatorSetupToken(h.svc.store, undefined);
    assert.match(token, /^[A-Za-z0-9_-]{32}$/);
    assert.equal(await operatorSetupToken(h.svc.store, undefined), token, 'the same token on every call (and instance)');
    const e = email();
    const r = await call(auth.signUp, '/auth/sign-up', {
      method: 'POST',
      body: { email: `  ${e.toUpperCase()} `, password, displayName: 'Ada', setupToken: token },
      browser: { ip: '203.0.113.1' },
    });
    assert.equal(r.status, 201, r.text);
    assert.deepEqual(Object.keys(r.json).sort(), ['csrfToken', 'user']);
    assert.deepEqual(Object.keys(r.json.user).sort(), ['createdAt', 'displayName', 'email', 'id', 'isAdmin']);
    assert.equal(r.json.user.email, e);
    assert.equal(r.json.user.displayName, 'Ada');
    assert.equal(r.json.user.isAdmin, true);
    assert.match(r.json.csrfToken, /^[A-Za-z0-9_-]{43}$/);
    assert.equal(r.headers.get('cache-control'), 'no-store');
    const set = r.headers.get('set-cookie') ?? '';
    assert.match(set, /HttpOnly/);
    assert.match(set, /SameSite=Lax/);
    assert.match(set, /Path=\//);
    assert.match(set, /Max-Age=2592000/);
    assert.doesNotMatch(set, /Secure/);

    const second = await signUp();
    assert.equal(second.isAdmin, false);
    // Once there is an operator, the token makes no second one.
    const again = await call(auth.signUp, '/auth/sign-up', {
      method: 'POST',
      body: { email: email(), password, setupToken: token },
      browser: { ip: '203.0.113.10' },
    });
    assert.deepEqual([again.status, again.json.user.isAdmin], [201, false]);
    // LAGOON_OPERATOR_TOKEN, when set, is the token.
    assert.equal(await operatorSetupToken(h.svc.store, 'chosen-by-the-operator'), 'chosen-by-the-operator');
  });

  test('the cookie is Secure when the browser came over https (directly or through a proxy)', async () => {
    const r = await call(auth.signUp, '/auth/sign-up', {
      method: 'POST',
      body: { email: email(), password },
      headers: { 'x-forwarded-proto': 'https', origin: ORIGIN },
    });
    assert.equal(r.status, 201, r.text);
    assert.match(r.headers.get('set-cookie') ?? '', /; Secure/);
  });

  test('me answers the user and the CSRF token; after sign-out it is 401 and the cookie is cleared', async () => {
    const b = await signUp();
    const me = await call(auth.me, '/auth/me', { browser: b });
    assert.equal(me.status, 200);
    assert.equal(me.json.user.id, b.userId);
    assert.equal(me.json.user.email, b.email);
    assert.equal(me.json.csrfToken, b.csrf);

    const out = await call(auth.signOut, '/auth/sign-out', { method: 'POST', browser: b });
    assert.equal(out.status, 204);
    assert.equal(out.text, '');
    assert.match(out.headers.get('set-cookie') ?? '', /^lagoon_session=;.*Max-Age=0/);

    const after = await call(auth.me, '/auth/me', { browser: b });
    assert.equal(after.status, 401);
    assert.equal(after.json.code, 'AUTHENTICATION_FAILED');
    assert.match(after.headers.get('set-cookie') ?? '', /Max-Age=0/, 'a dead cookie is cleared');
  });

  test('me without any cookie is 401 and sets no cookie', async () => {
    const r = await call(auth.me, '/auth/me');
    assert.equal(r.status, 401);
    assert.deepEqual(Object.keys(r.json).sort(), ['code', 'error']);
    assert.equal(r.headers.get('set-cookie'), null);
  });

  test('signing out without a session is a harmless 204', async () => {
    const r = await call(auth.signOut, '/auth/sign-out', { method: 'POST' });
    assert.equal(r.status, 204);
  });
});

describe('sign-up validation', () => {
  test('a duplicate email (any case) is a clear 400 on the email field', async () => {
    const b = await signUp();
    const r = await call(auth.signUp, '/auth/sign-up', { method: 'POST', body: { email: b.email.toUpperCase(), password } });
    assert.equal(r.status, 400);
    assert.equal(r.json.code, 'INVALID_REQUEST');
    assert.equal(r.json.param, 'email');
    assert.match(r.json.error, /already exists/);
  });

  test('a bad email, a short password and a bad display name are 400 naming the field', async () => {
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ email: 'not-an-email', password }, 'email', /valid email/],
      [{ password }, 'email', /required/],
      [{ email: email(), password: 'short' }, 'password', /10/],
      [{ email: email() }, 'password', /required/],
      [{ email: email(), password, displayName: 'x'.repeat(81) }, 'displayName', /80/],
    ];
    for (const [body, param, message] of cases) {
      const r = await call(auth.signUp, '/auth/sign-up', { method: 'POST', body });
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.equal(r.json.param, param);
      assert.match(r.json.error, message);
    }
  });

  test('a body that is not JSON is refused before anything runs', async () => {
    const r = await call(auth.signUp, '/auth/sign-up', {
      method: 'POST',
      body: 'email=a@b.c',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.equal(r.status, 415);
    const broken = await call(auth.signIn, '/auth/sign-in', { method: 'POST', body: '{"email":' });
    assert.equal(broken.status, 400);
    assert.equal(broken.json.code, 'INVALID_JSON');
  });
});

describe('sign-in', () => {
  test('signs in with the email in any case; a new session replaces the browser’s old one', async () => {
    const b = await signUp();
    const r = await call(auth.signIn, '/auth/sign-in', { method: 'POST', body: { email: b.email.toUpperCase(), password }, browser: b });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.user.id, b.userId);
    const fresh = { ...b, cookie: cookieFrom(r), csrf: r.json.csrfToken };
    assert.notEqual(fresh.cookie, b.cookie);
    assert.equal((await call(auth.me, '/auth/me', { browser: b })).status, 401, 'the old session is ended (no fixation)');
    assert.equal((await call(auth.me, '/auth/me', { browser: fresh })).status, 200);
  });

  test('a wrong password and an unknown email get the same generic 401', async () => {
    const b = await signUp();
    const wrong = await call(auth.signIn, '/auth/sign-in', { method: 'POST', body: { email: b.email, password: 'wrong password!!' } });
    const unknown = await call(auth.signIn, '/auth/sign-in', { method: 'POST', body: { email: `nobody-${b.email}`, password } });
    const missing = await call(auth.signIn, '/auth/sign-in', { method: 'POST', body: {} });
    for (const r of [wrong, unknown, missing]) {
      assert.equal(r.status, 401);
      assert.deepEqual(r.json, { error: 'Incorrect email or password', code: 'AUTHENTICATION_FAILED' });
      assert.equal(r.headers.get('set-cookie'), null);
    }
  });

  test('brute force: failures per email are limited (429 with retry-after, even for the right password), success resets them', async () => {
    const routes = authRoutes(deps({ LAGOON_SIGNIN_MAX_FAILURES: '3', LAGOON_SIGNIN_MAX_FAILURES_PER_IP: '100' }));
    const victim = await signUp(routes);
    const attempt = (pw: string, ip: string) =>
      call(routes.signIn, '/auth/sign-in', { method: 'POST', body: { email: victim.email, password: pw }, browser: { ip } });
    // Two failures, then a success: the email's count starts again.
    assert.equal((await attempt('nope nope nope', '10.0.0.1')).status, 401);
    assert.equal((await attempt('nope nope nope', '10.0.0.2')).status, 401);
    assert.equal((await attempt(password, '10.0.0.3')).status, 200);
    for (let i = 0; i < 3; i++) assert.equal((await attempt('nope nope nope', `10.0.1.${i}`)).status, 401);
    const blocked = await attempt(password, '10.0.2.1');
    assert.equal(blocked.status, 429);
    assert.equal(blocked.json.code, 'RATE_LIMIT_EXCEEDED');
    assert.match(blocked.json.error, /Too many failed sign-in attempts/);
    const retry = Number(blocked.headers.get('retry-after'));
    assert.ok(retry >= 1 && retry <= 900, `retry-after ${retry}`);
    assert.equal(blocked.json.retryAfter, retry);
    // Another account is not affected.
    const other = await signUp(routes);
    assert.equal(
      (await call(routes.signIn, '/auth/sign-in', { method: 'POST', body: { email: other.email, password }, browser: { ip: '10.0.3.1' } })).status,
      200,
    );
  });

  test('brute force: failures per IP are limited across emails', async () => {
    const routes = authRoutes(deps({ LAGOON_SIGNIN_MAX_FAILURES: '100', LAGOON_SIGNIN_MAX_FAILURES_PER_IP: '4' }));
    const user = await signUp(routes);
    const ip = '10.9.9.9';
    for (let i = 0; i < 4; i++) {
      const r = await call(routes.signIn, '/auth/sign-in', { method: 'POST', body: { email: `guess${i}@example.com`, password }, browser: { ip } });
      assert.equal(r.status, 401);
    }
    const r = await call(routes.signIn, '/auth/sign-in', { method: 'POST', body: { email: user.email, password }, browser: { ip } });
    assert.equal(r.status, 429);
    assert.ok(Number(r.headers.get('retry-after')) >= 1);
    const elsewhere = await call(routes.signIn, '/auth/sign-in', { method: 'POST', body: { email: user.email, password }, browser: { ip: '10.9.9.10' } });
    assert.equal(elsewhere.status, 200);
  });

  test('concurrent guesses cannot slip past the limit', async () => {
    const routes = authRoutes(deps({ LAGOON_SIGNIN_MAX_FAILURES: '5', LAGOON_SIGNIN_MAX_FAILURES_PER_IP: '100' }));
    const victim = await signUp(routes);
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        call(routes.signIn, '/auth/sign-in', { method: 'POST', body: { email: victim.email, password: `guess number ${i}` }, browser: { ip: `10.8.0.${i}` } }),
      ),
    );
    assert.equal(results.filter((r) => r.status === 401).length, 5);
    assert.equal(results.filter((r) => r.status === 429).length, 7);
  });

  test('sign-ups per IP are limited; refused sign-ups do not count', async () => {
    const routes = authRoutes(deps({ LAGOON_SIGNUPS_PER_IP_PER_HOUR: '2' }));
    const ip = '10.7.7.7';
    const up = (body: Record<string, unknown>) => call(routes.signUp, '/auth/sign-up', { method: 'POST', body, browser: { ip } });
    assert.equal((await up({ email: 'bad', password })).status, 400);
    assert.equal((await up({ email: email(), password })).status, 201);
    assert.equal((await up({ email: email(), password })).status, 201);
    const r = await up({ email: email(), password });
    assert.equal(r.status, 429);
    assert.match(r.json.error, /Too many accounts/);
    assert.ok(Number(r.headers.get('retry-after')) > 0);
  });
});

describe('CSRF and Origin', () => {
  test('sign-up and sign-in refuse a foreign Origin and a cross-site fetch', async () => {
    const b = await signUp();
    const foreign: Record<string, string>[] = [
      { origin: 'https://evil.example' },
      { origin: 'null' },
      { origin: `${ORIGIN}.evil.example` },
      { 'sec-fetch-site': 'cross-site' },
    ];
    for (const headers of foreign) {
      const up = await call(auth.signUp, '/auth/sign-up', { method: 'POST', body: { email: email(), password }, headers });
      assert.equal(up.status, 403, JSON.stringify(headers));
      assert.equal(up.json.code, 'FORBIDDEN');
      const inn = await call(auth.signIn, '/auth/sign-in', { method: 'POST', body: { email: b.email, password }, headers });
      assert.equal(inn.status, 403);
      assert.equal(inn.headers.get('set-cookie'), null);
    }
    const same = await call(auth.signIn, '/auth/sign-in', { method: 'POST', body: { email: b.email, password }, headers: { 'sec-fetch-site': 'same-origin' } });
    assert.equal(same.status, 200);
  });

  test('state-changing routes need the session’s token (403 when missing or wrong) and refuse a foreign Origin', async () => {
    const b = await signUp();
    const conv = conversationRoutes(deps());
    const missing = await call(conv.createConversation, '/conversations', { method: 'POST', body: {}, browser: b, noCsrf: true });
    assert.equal(missing.status, 403);
    assert.match(missing.json.error, /x-csrf-token/);
    const wrong = await call(conv.createConversation, '/conversations', { method: 'POST', body: {}, browser: b, headers: { 'x-csrf-token': 'A'.repeat(43) } });
    assert.equal(wrong.status, 403);
    const foreign = await call(conv.createConversation, '/conversations', {
      method: 'POST',
      body: {},
      browser: b,
      headers: { origin: 'https://evil.example' },
    });
    assert.equal(foreign.status, 403);
    assert.match(foreign.json.error, /Origin/);
    const list = await call(conv.listConversations, '/conversations', { browser: b });
    assert.equal(list.json.items.length, 0, 'nothing was created');

    const signOut = await call(auth.signOut, '/auth/sign-out', { method: 'POST', browser: b, noCsrf: true });
    assert.equal(signOut.status, 403);
    assert.equal((await call(auth.me, '/auth/me', { browser: b })).status, 200, 'the session survives a forged sign-out');
  });
});

describe('starting credit', () => {
  test('new users get LAGOON_NEW_USER_USD once and LAGOON_NEW_USER_DIEM a day (default 1 DIEM, 0 USD)', async () => {
    const cat = catalogueRoutes(deps());
    const plain = await signUp();
    const a = await call(cat.account, '/account', { browser: plain });
    assert.deepEqual(a.json.balances, { usd: 0, diem: 1 });
    assert.equal(a.json.diemDailyAllowance, 1);

    const generous = authRoutes(deps({ LAGOON_NEW_USER_USD: '2.5', LAGOON_NEW_USER_DIEM: '0' }));
    const rich = await signUp(generous);
    const b = await call(cat.account, '/account', { browser: rich });
    assert.deepEqual(b.json.balances, { usd: 2.5, diem: 0 });
  });

  test('a bad starting-credit setting stops the server at start, not at sign-up', () => {
    assert.throws(() => authRoutes(deps({ LAGOON_NEW_USER_USD: 'lots' })), /LAGOON_NEW_USER_USD/);
    assert.throws(() => authRoutes(deps({ LAGOON_SIGNIN_MAX_FAILURES: '0' })), /LAGOON_SIGNIN_MAX_FAILURES/);
  });
});
