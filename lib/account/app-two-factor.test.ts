// Two-step sign-in (TOTP) on a real service, on SQLite and PostgreSQL: enrolment with a sealed secret and recovery
// codes shown once, the sign-in's second step (no session before it; a code works once; a recovery code once; a
// challenge a few tries), turning it off, and a PostgreSQL server without a secrets key refusing enrolment.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { Secret, TOTP } from 'otpauth';
import { type Browser, caller, cookieFrom } from '../../e2e/support/app-requests.ts';
import { startHarness } from '../../e2e/support/harness.ts';
import { createTestDatabase } from '../../e2e/support/pg.ts';
import { BACKENDS } from '../../e2e/support/stores.ts';

const password = 'correct horse battery';
let n = 0;
const codeAt = (secret: string, at: number) => new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: at });

async function world(backend: (typeof BACKENDS)[number], withKey = true) {
  let databaseUrl: string | undefined;
  let drop: (() => Promise<void>) | undefined;
  if (backend === 'postgres') ({ url: databaseUrl, drop } = await createTestDatabase());
  const env = databaseUrl && withKey ? { LAGOON_SECRETS_KEY: crypto.randomBytes(32).toString('hex') } : undefined;
  const h = await startHarness({ app: true, databaseUrl, env });
  return { h, routes: h.app!.routes, call: caller(h.svc.store), close: async () => (await h.close(), await drop?.()) };
}

for (const backend of BACKENDS)
  describe(`two-step sign-in with TOTP (${backend})`, () => {
    let w: Awaited<ReturnType<typeof world>>;
    before(async () => {
      w = await world(backend);
    });
    after(() => w?.close());

    const ip = () => `198.51.100.${++n % 250}`;
    async function signUp(): Promise<Browser & { email: string }> {
      const email = `totp${++n}-${Date.now()}@example.com`;
      const b = { ip: ip() };
      const r = await w.call(w.routes.signUp, '/auth/sign-up', { method: 'POST', body: { email, password }, browser: b });
      assert.equal(r.status, 201, r.text);
      return { ...b, email, cookie: cookieFrom(r), csrf: r.json.csrfToken };
    }
    async function enrol(b: Browser): Promise<{ secret: string; codes: string[] }> {
      const begin = await w.call(w.routes.beginTotp, '/account/two-factor/totp', { method: 'POST', browser: b });
      assert.equal(begin.status, 200, begin.text);
      const secret: string = begin.json.secret;
      const done = await w.call(w.routes.confirmTotp, '/account/two-factor/totp/confirm', {
        method: 'POST',
        body: { code: codeAt(secret, Date.now()) },
        browser: b,
      });
      assert.equal(done.status, 200, done.text);
      return { secret, codes: done.json.recoveryCodes };
    }
    const passwordStep = (email: string) => w.call(w.routes.signIn, '/auth/sign-in', { method: 'POST', body: { email, password }, browser: { ip: ip() } });
    const codeStep = (challenge: string, code: string) =>
      w.call(w.routes.signInSecondFactor, '/auth/sign-in/second-factor', { method: 'POST', body: { challenge, code }, browser: { ip: ip() } });

    test('enrolment: a sealed secret, a wrong code refused, then recovery codes once', async () => {
      const b = await signUp();
      const off = await w.call(w.routes.twoFactor, '/account/two-factor', { browser: b });
      assert.deepEqual(off.json, { totp: false, available: true, recoveryCodesLeft: 0 });
      const begin = await w.call(w.routes.beginTotp, '/account/two-factor/totp', { method: 'POST', browser: b });
      assert.match(begin.json.secret, /^[A-Z2-7]{32}$/);
      assert.match(begin.json.uri, /^otpauth:\/\/totp\/Lagoon:.*secret=[A-Z2-7]{32}/);
      const wrong = await w.call(w.routes.confirmTotp, '/account/two-factor/totp/confirm', { method: 'POST', body: { code: '000000' }, browser: b });
      assert.deepEqual([wrong.status, wrong.json.param], [400, 'code']);
      const noCsrf = await w.call(w.routes.confirmTotp, '/account/two-factor/totp/confirm', { method: 'POST', body: { code: '1' }, browser: b, noCsrf: true });
      assert.equal(noCsrf.status, 403);
      const ok = await w.call(w.routes.confirmTotp, '/account/two-factor/totp/confirm', {
        method: 'POST',
        body: { code: codeAt(begin.json.secret, Date.now()) },
        browser: b,
      });
      assert.equal(ok.status, 200, ok.text);
      assert.equal(ok.json.recoveryCodes.length, 10);
      for (const c of ok.json.recoveryCodes) assert.match(c, /^[a-z2-9]{5}-[a-z2-9]{5}$/);
      const on = await w.call(w.routes.twoFactor, '/account/two-factor', { browser: b });
      assert.deepEqual(on.json, { totp: true, available: true, recoveryCodesLeft: 10 });
      const row = await w.h.svc.store.get<{ totp_secret: string }>('SELECT totp_secret FROM users WHERE email = $1', [b.email]);
      assert.match(row?.totp_secret ?? '', /^sealed:v1:/);
      assert.ok(!row?.totp_secret.includes(begin.json.secret));
      const again = await w.call(w.routes.beginTotp, '/account/two-factor/totp', { method: 'POST', browser: b });
      assert.equal(again.status, 409);
    });

    test('sign-in: the password step starts no session; a code works once; then a session', async () => {
      const b = await signUp();
      const { secret } = await enrol(b);
      const first = await passwordStep(b.email);
      assert.equal(first.status, 200, first.text);
      assert.deepEqual(Object.keys(first.json).sort(), ['challenge', 'secondFactor']);
      assert.equal(first.json.secondFactor, 'totp');
      assert.equal(first.headers.get('set-cookie'), null, 'no session before the second factor');
      // The code used at enrolment (the same time step) is a replay.
      const replay = await codeStep(first.json.challenge, codeAt(secret, Date.now()));
      assert.deepEqual([replay.status, replay.json.param], [400, 'code']);
      const next = codeAt(secret, Date.now() + 30_000);
      const ok = await codeStep(first.json.challenge, next);
      assert.equal(ok.status, 200, ok.text);
      assert.equal(ok.json.user.email, b.email);
      assert.match(ok.headers.get('set-cookie') ?? '', /^lagoon_session=/);
      // The challenge is gone, and the code cannot serve another sign-in.
      assert.equal((await codeStep(first.json.challenge, next)).status, 401);
      const second = await passwordStep(b.email);
      assert.equal((await codeStep(second.json.challenge, next)).status, 400);
    });

    test('a recovery code signs in once; a challenge allows five tries', async () => {
      const b = await signUp();
      const { codes } = await enrol(b);
      const c1 = await passwordStep(b.email);
      const ok = await codeStep(c1.json.challenge, codes[0].toUpperCase());
      assert.equal(ok.status, 200, ok.text);
      const c2 = await passwordStep(b.email);
      assert.equal((await codeStep(c2.json.challenge, codes[0])).status, 400, 'a used recovery code');
      const left = await w.call(w.routes.twoFactor, '/account/two-factor', { browser: { ip: b.ip, cookie: cookieFrom(ok) } });
      assert.equal(left.json.recoveryCodesLeft, 9);
      const c3 = await passwordStep(b.email);
      for (let i = 0; i < 4; i++) assert.equal((await codeStep(c3.json.challenge, '123456')).status, 400);
      // The fifth wrong try uses the challenge up: a right code now is too late.
      assert.equal((await codeStep(c3.json.challenge, '654321')).status, 400);
      const late = await codeStep(c3.json.challenge, codes[1]);
      assert.deepEqual([late.status, late.json.code], [401, 'AUTHENTICATION_FAILED']);
      assert.equal((await codeStep('not-a-challenge', codes[1])).status, 401);
    });

    test('turning it off takes a code; then the password alone signs in', async () => {
      const b = await signUp();
      const { codes } = await enrol(b);
      const bad = await w.call(w.routes.disableTotp, '/account/two-factor/totp/disable', { method: 'POST', body: { code: '000000' }, browser: b });
      assert.deepEqual([bad.status, bad.json.param], [400, 'code']);
      const off = await w.call(w.routes.disableTotp, '/account/two-factor/totp/disable', { method: 'POST', body: { code: codes[3] }, browser: b });
      assert.equal(off.status, 204, off.text);
      const r = await passwordStep(b.email);
      assert.equal(r.status, 200);
      assert.ok(r.json.csrfToken);
    });
  });

describe('PostgreSQL without LAGOON_SECRETS_KEY', () => {
  let w: Awaited<ReturnType<typeof world>>;
  before(async () => {
    w = await world('postgres', false);
  });
  after(() => w?.close());

  test('two-step sign-in is unavailable and enrolment is refused with the reason', async () => {
    const r = await w.call(w.routes.signUp, '/auth/sign-up', { method: 'POST', body: { email: `nokey-${Date.now()}@example.com`, password } });
    const b = { ip: '192.0.2.9', cookie: cookieFrom(r), csrf: r.json.csrfToken };
    assert.deepEqual((await w.call(w.routes.twoFactor, '/account/two-factor', { browser: b })).json, { totp: false, available: false, recoveryCodesLeft: 0 });
    const begin = await w.call(w.routes.beginTotp, '/account/two-factor/totp', { method: 'POST', browser: b });
    assert.equal(begin.status, 409);
    assert.match(begin.json.error, /LAGOON_SECRETS_KEY/);
  });
});

describe('LAGOON_OPERATOR_REQUIRE_2FA', () => {
  let h: Awaited<ReturnType<typeof startHarness>>;
  before(async () => {
    h = await startHarness({ app: true, env: { LAGOON_OPERATOR_REQUIRE_2FA: '1' } });
  });
  after(() => h.close());

  test('the operator signed in by password alone is refused operator routes; after the TOTP step they are served', async () => {
    const routes = h.app!.routes;
    const call = caller(h.svc.store);
    const email = `operator-${Date.now()}@example.com`;
    const { operatorSetupToken } = await import('../users/operator-setup.ts');
    const setupToken = await operatorSetupToken(h.svc.store, undefined);
    const up = await call(routes.signUp, '/auth/sign-up', { method: 'POST', body: { email, password, setupToken } });
    assert.equal(up.json.user.isAdmin, true);
    const b = { ip: '192.0.2.40', cookie: cookieFrom(up), csrf: up.json.csrfToken };
    const refused = await call(routes.operatorAccounts, '/operator/accounts', { browser: b });
    assert.deepEqual([refused.status, refused.json.code], [403, 'FORBIDDEN']);
    assert.match(refused.json.error, /second factor/);
    // The account page stays open, so the operator can set one up.
    const begin = await call(routes.beginTotp, '/account/two-factor/totp', { method: 'POST', browser: b });
    const done = await call(routes.confirmTotp, '/account/two-factor/totp/confirm', {
      method: 'POST',
      body: { code: codeAt(begin.json.secret, Date.now()) },
      browser: b,
    });
    assert.equal(done.status, 200);
    assert.equal((await call(routes.operatorAccounts, '/operator/accounts', { browser: b })).status, 403, 'this session began with a password alone');
    const step = await call(routes.signIn, '/auth/sign-in', { method: 'POST', body: { email, password } });
    const signedIn = await call(routes.signInSecondFactor, '/auth/sign-in/second-factor', {
      method: 'POST',
      body: { challenge: step.json.challenge, code: codeAt(begin.json.secret, Date.now() + 30_000) },
    });
    assert.equal(signedIn.status, 200, signedIn.text);
    const ok = await call(routes.operatorAccounts, '/operator/accounts', { browser: { ip: '192.0.2.41', cookie: cookieFrom(signedIn) } });
    assert.equal(ok.status, 200, ok.text);
  });
});
