// The user's own settings and the operator's reset on a real service, SQLite and PostgreSQL: the display name
// changes (cleaned, length-checked); a password change needs the current password, ends every other session and
// keeps this one, and the new password signs in while the old one does not; wrong guesses count against the sign-in
// budget; the operator's reset issues a temporary password once, ends the user's sessions, and is audited.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createSession, SESSION_COOKIE } from '../users/sessions.ts';
import type { Browser } from '../../e2e/support/app-requests.ts';
import type { OperatorAuditPage, PasswordReset } from '../wire.ts';
import { BACKENDS, type Dash, type DashUser, startDash } from '../../e2e/support/app-dash.ts';

const PASSWORD = 'correct horse battery staple';

for (const backend of BACKENDS)
  describe(`account settings and the operator's reset (${backend})`, () => {
    let d: Dash;
    let op: DashUser;
    let ann: DashUser;

    before(async () => {
      d = await startDash(backend, { limits: {} });
      op = await d.newUser(0);
      ann = await d.newUser(0);
    });
    after(() => d?.close());

    const me = (browser: Browser) => d.call(d.routes.me, '/auth/me', { browser });
    const signIn = (email: string, password: string, ip = '192.0.2.50') =>
      d.call(d.routes.signIn, '/auth/sign-in', { method: 'POST', body: { email, password }, browser: { ip } });
    const changePassword = (browser: Browser, body: unknown) => d.call(d.routes.changePassword, '/account/password', { method: 'POST', body, browser });
    const otherSession = async (u: DashUser): Promise<Browser> => {
      const s = await createSession(d.h.svc.store, u.user.id);
      return { ip: '192.0.2.21', cookie: `${SESSION_COOKIE}=${s.token}`, csrf: s.csrfToken };
    };

    test('the display name: set, cleaned, cleared; too long or not text is a 400', async () => {
      const set = (displayName: unknown) =>
        d.call(d.routes.updateProfile, '/account/profile', { method: 'PATCH', body: { displayName }, browser: ann.browser });
      let r = await set('  Ann\u202E Example ');
      assert.equal(r.status, 200, r.text);
      assert.equal(r.json.user.displayName, 'Ann Example');
      assert.equal((await me(ann.browser)).json.user.displayName, 'Ann Example');
      assert.equal((await set('x'.repeat(81))).status, 400);
      assert.equal((await set(5)).status, 400);
      r = await set('');
      assert.equal(r.json.user.displayName, null);
      assert.equal(
        (await d.call(d.routes.updateProfile, '/account/profile', { method: 'PATCH', body: { displayName: 'A' }, browser: ann.browser, noCsrf: true })).status,
        403,
      );
    });

    test('a password change needs the current one; other sessions end, this one stays', async () => {
      const other = await otherSession(ann);
      assert.equal((await me(other)).status, 200);
      let r = await changePassword(ann.browser, { currentPassword: 'wrong password!!', newPassword: 'a brand new passphrase' });
      assert.equal(r.status, 400, r.text);
      assert.equal(r.json.param, 'currentPassword');
      r = await changePassword(ann.browser, { currentPassword: PASSWORD, newPassword: 'short' });
      assert.equal(r.status, 400);
      assert.equal(r.json.param, 'newPassword');
      r = await changePassword(ann.browser, { currentPassword: PASSWORD, newPassword: PASSWORD });
      assert.equal(r.status, 400);
      assert.equal((await me(other)).status, 200, 'a refused change ends nothing');

      r = await changePassword(ann.browser, { currentPassword: PASSWORD, newPassword: 'a brand new passphrase' });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.json.sessionsEnded, 1);
      assert.equal((await me(ann.browser)).status, 200, 'this session stays');
      assert.equal((await me(other)).status, 401, 'the other session ended');
      assert.equal((await signIn(ann.email, PASSWORD)).status, 401, 'the old password no longer signs in');
      assert.equal((await signIn(ann.email, 'a brand new passphrase')).status, 200);
    });

    test('wrong current passwords count against the sign-in budget (429)', async () => {
      const limit = d.h.svc.config.app.authLimits.failuresPerEmail;
      const statuses: number[] = [];
      for (let i = 0; i <= limit; i++)
        statuses.push(
          (await changePassword({ ...ann.browser, ip: '192.0.2.77' }, { currentPassword: `guess number ${i}`, newPassword: 'whatever it may be' })).status,
        );
      assert.equal(statuses.at(-1), 429, statuses.join(','));
    });

    test("the operator resets a user's password: a temporary one, shown once; sessions end; audited", async () => {
      const bob = await d.newUser(0);
      const reset = (who: DashUser, id: string) =>
        d.call(d.routes.operatorResetPassword, `/operator/accounts/${id}/reset-password`, { method: 'POST', browser: who.browser }, { id });
      assert.equal((await reset(bob, ann.user.accountId)).status, 403, 'only the operator');
      assert.equal((await reset(op, op.user.accountId)).status, 400, 'their own: in Account, with the current password');
      assert.equal((await reset(op, 'no-such-account')).status, 404);

      const r = await reset(op, bob.user.accountId);
      assert.equal(r.status, 200, r.text);
      const body = r.json as PasswordReset;
      assert.equal(body.email, bob.email);
      assert.ok(body.temporaryPassword.length >= 20);
      assert.equal(body.sessionsEnded, 1);
      assert.equal((await me(bob.browser)).status, 401, "the user's sessions ended");
      assert.equal((await signIn(bob.email, PASSWORD, '192.0.2.60')).status, 401);
      assert.equal((await signIn(bob.email, body.temporaryPassword, '192.0.2.60')).status, 200);

      const audit = await d.call(d.routes.operatorAudit, '/operator/audit', { browser: op.browser });
      const entry = (audit.json as OperatorAuditPage).entries.find((e) => e.action === 'password_reset');
      assert.ok(entry);
      assert.equal(entry.accountId, bob.user.accountId);
      assert.ok(!audit.text.includes(body.temporaryPassword), 'the temporary password is not in the log');
    });
  });
