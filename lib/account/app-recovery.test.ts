// Password reset by mail on a real service and a real SMTP server on loopback, on SQLite and PostgreSQL: the mail and
// its one-time link, the same answer for unknown addresses, sessions ended by a reset, single use, newest link only,
// expiry, the per-address and per-IP limits, and the feature saying it is off without LAGOON_SMTP_URL.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { type Browser, caller, cookieFrom } from '../../e2e/support/app-requests.ts';
import { type Harness, startHarness } from '../../e2e/support/harness.ts';
import { createTestDatabase } from '../../e2e/support/pg.ts';
import { resetLinkIn, startSmtp, type TestSmtp } from '../../e2e/support/smtp.ts';
import { BACKENDS } from '../../e2e/support/stores.ts';
import { loadConfig } from '../config.ts';
import { createResetToken, purgeResetTokens, resetWithToken } from '../users/password-reset.ts';
import { recoveryRoutes } from './app-recovery.ts';

const password = 'correct horse battery';
const newPassword = 'a brand new passphrase';
let n = 0;

for (const backend of BACKENDS)
  describe(`password reset by mail (${backend})`, () => {
    let h: Harness;
    let smtp: TestSmtp;
    let drop: (() => Promise<void>) | undefined;
    let routes: NonNullable<Harness['app']>['routes'];
    let call: ReturnType<typeof caller>;

    before(async () => {
      smtp = await startSmtp();
      let databaseUrl: string | undefined;
      if (backend === 'postgres') ({ url: databaseUrl, drop } = await createTestDatabase());
      h = await startHarness({
        app: true,
        databaseUrl,
        env: { LAGOON_SMTP_URL: smtp.url, LAGOON_SMTP_FROM: 'Lagoon <accounts@lagoon.test>', LAGOON_RESET_MAILS_PER_EMAIL_PER_HOUR: '3' },
      });
      routes = h.app!.routes;
      call = caller(h.svc.store);
    });
    after(async () => {
      await h?.close();
      await drop?.();
      await smtp?.close();
    });

    const ip = () => `198.51.100.${++n % 250}`;
    async function signUp(): Promise<Browser & { email: string }> {
      const email = `reset${++n}-${Date.now()}@example.com`;
      const b = { ip: ip() };
      const r = await call(routes.signUp, '/auth/sign-up', { method: 'POST', body: { email, password }, browser: b });
      assert.equal(r.status, 201, r.text);
      return { ...b, email, cookie: cookieFrom(r), csrf: r.json.csrfToken };
    }
    const ask = (email: string, from = ip()) =>
      call(routes.requestPasswordReset, '/auth/password-reset', { method: 'POST', body: { email }, browser: { ip: from } });
    const confirm = (token: string, pw = newPassword) =>
      call(routes.confirmPasswordReset, '/auth/password-reset/confirm', { method: 'POST', body: { token, password: pw }, browser: { ip: ip() } });
    const signIn = (email: string, pw: string) =>
      call(routes.signIn, '/auth/sign-in', { method: 'POST', body: { email, password: pw }, browser: { ip: ip() } });
    const tokenOf = (link: string) => new URL(link).hash.slice('#token='.length);

    test('recovery is on; a reset mail comes through SMTP with a one-time link to this server', async () => {
      const info = await call(routes.recoveryInfo, '/auth/recovery');
      assert.deepEqual([info.status, info.json], [200, { mail: true }]);
      const u = await signUp();
      const r = await ask(u.email.toUpperCase());
      assert.deepEqual([r.status, r.json], [202, { sent: true }]);
      const mail = await smtp.next(u.email);
      assert.equal(mail.from, 'accounts@lagoon.test');
      assert.equal(mail.subject, 'Reset your Lagoon password');
      const link = resetLinkIn(mail.text);
      assert.ok(link.startsWith(`${h.origin}/reset-password#token=`), link);
      assert.match(mail.text, /works once, for 60 minutes/);
      // Only the token's SHA-256 is stored.
      const rows = await h.svc.store.all<{ token_hash: string }>('SELECT token_hash FROM password_resets');
      const token = tokenOf(link);
      assert.ok(rows.some((x) => x.token_hash === createHash('sha256').update(token).digest('hex')));
      assert.ok(!rows.some((x) => x.token_hash === token));
    });

    test('an unknown address gets the same answer and no mail', async () => {
      const before = smtp.mails.length;
      const r = await ask(`nobody${++n}@example.com`);
      assert.deepEqual([r.status, r.json], [202, { sent: true }]);
      await new Promise((res) => setTimeout(res, 400));
      assert.equal(smtp.mails.length, before);
      const bad = await ask('not an address');
      assert.deepEqual([bad.status, bad.json.param], [400, 'email']);
    });

    test('the link sets the new password once and ends every session; the old password stops working', async () => {
      const u = await signUp();
      const other = await signIn(u.email, password);
      assert.equal(other.status, 200);
      await ask(u.email);
      const token = tokenOf(resetLinkIn((await smtp.next(u.email)).text));
      // A password outside the rules is a form error and leaves the link usable.
      const short = await confirm(token, 'short');
      assert.deepEqual([short.status, short.json.param], [400, 'password']);
      const ok = await confirm(token);
      assert.equal(ok.status, 204, ok.text);
      assert.equal((await call(routes.me, '/auth/me', { browser: u })).status, 401, 'the session that existed is over');
      assert.equal((await call(routes.me, '/auth/me', { browser: { ip: u.ip, cookie: cookieFrom(other) } })).status, 401);
      assert.equal((await signIn(u.email, password)).status, 401);
      assert.equal((await signIn(u.email, newPassword)).status, 200);
      const again = await confirm(token, 'yet another passphrase');
      assert.deepEqual([again.status, again.json.param], [400, 'token']);
      assert.match(again.json.error, /invalid, used or expired/);
    });

    test('asking again voids the earlier link; an expired or malformed token is refused', async () => {
      const u = await signUp();
      await ask(u.email);
      const first = tokenOf(resetLinkIn((await smtp.next(u.email)).text));
      await ask(u.email);
      const second = tokenOf(resetLinkIn((await smtp.next(u.email)).text));
      assert.notEqual(first, second);
      assert.equal((await confirm(first)).status, 400);
      assert.equal((await confirm('x'.repeat(43))).status, 400);
      assert.equal((await confirm('../../etc')).status, 400);
      assert.equal((await confirm(second)).status, 204);

      const signedIn = await signIn(u.email, newPassword);
      const old = await createResetToken(h.svc.store, signedIn.json.user.id, 60_000, Date.now() - 120_000);
      await assert.rejects(resetWithToken(h.svc.store, old, newPassword), /invalid, used or expired/);
      assert.ok((await purgeResetTokens(h.svc.store)) >= 1);
    });

    test('email verification: a mailed link proves the address once; a changed address is not proved by an old link', async () => {
      const u = await signUp();
      const before = await call(routes.emailStatus, '/account/email', { browser: u });
      assert.deepEqual(before.json, { email: u.email, verified: false, mail: true });
      const r = await call(routes.requestEmailVerification, '/account/email/verify', { method: 'POST', browser: u });
      assert.equal(r.status, 202, r.text);
      const mail = await smtp.next(u.email);
      assert.equal(mail.subject, 'Verify your Lagoon email address');
      const m = /https?:\/\/\S+\/verify-email#token=([A-Za-z0-9_-]{43})/.exec(mail.text);
      assert.ok(m, mail.text);
      assert.ok(m[0].startsWith(`${h.origin}/verify-email#token=`));
      const ok = await call(routes.confirmEmail, '/auth/verify-email', { method: 'POST', body: { token: m[1] }, browser: { ip: ip() } });
      assert.equal(ok.status, 204, ok.text);
      assert.equal((await call(routes.emailStatus, '/account/email', { browser: u })).json.verified, true);
      const again = await call(routes.confirmEmail, '/auth/verify-email', { method: 'POST', body: { token: m[1] }, browser: { ip: ip() } });
      assert.deepEqual([again.status, again.json.param], [400, 'token']);
      const twice = await call(routes.requestEmailVerification, '/account/email/verify', { method: 'POST', browser: u });
      assert.equal(twice.status, 409);

      // A link for an address the user no longer has does not verify the new one.
      const v = await signUp();
      await call(routes.requestEmailVerification, '/account/email/verify', { method: 'POST', browser: v });
      const token = /#token=([A-Za-z0-9_-]{43})/.exec((await smtp.next(v.email)).text)?.[1] ?? '';
      await h.svc.store.run('UPDATE users SET email = $2 WHERE email = $1', [v.email, `changed-${v.email}`]);
      const stale = await call(routes.confirmEmail, '/auth/verify-email', { method: 'POST', body: { token }, browser: { ip: ip() } });
      assert.equal(stale.status, 400);
    });

    test('reset mails are limited per address (known or not) and per IP', async () => {
      const u = await signUp();
      for (let i = 0; i < 3; i++) assert.equal((await ask(u.email)).status, 202);
      for (let i = 0; i < 3; i++) await smtp.next(u.email);
      const fourth = await ask(u.email);
      assert.deepEqual([fourth.status, fourth.json.code], [429, 'RATE_LIMIT_EXCEEDED']);
      assert.ok(Number(fourth.headers.get('retry-after')) > 0);
      const unknown = `ghost${++n}@example.com`;
      for (let i = 0; i < 3; i++) assert.equal((await ask(unknown)).status, 202);
      assert.equal((await ask(unknown)).status, 429, 'an unknown address is limited the same way');
      const from = '203.0.113.77';
      for (let i = 0; i < 10; i++) assert.equal((await ask(`net${i}-${++n}@example.com`, from)).status, 202);
      const r = await ask(`net-last-${++n}@example.com`, from);
      assert.equal(r.status, 429);
      assert.match(r.json.error, /from this network/);
    });
  });

describe('without LAGOON_SMTP_URL', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ app: true });
  });
  after(() => h.close());

  test('recovery says it is off and the reset routes refuse with a pointer to the operator', async () => {
    const call = caller(h.svc.store);
    const routes = recoveryRoutes({ svc: h.svc, app: loadConfig({}).app });
    assert.deepEqual((await call(routes.recoveryInfo, '/auth/recovery')).json, { mail: false });
    const r = await call(routes.requestPasswordReset, '/auth/password-reset', { method: 'POST', body: { email: 'a@example.com' } });
    assert.equal(r.status, 404);
    assert.match(r.json.error, /off on this server.*operator/);
    const c = await call(routes.confirmPasswordReset, '/auth/password-reset/confirm', { method: 'POST', body: { token: 'x', password } });
    assert.equal(c.status, 404);
    assert.equal((await call(routes.requestEmailVerification, '/account/email/verify', { method: 'POST' })).status, 401);
  });
});
