// The operator clears a user's second factors (TOTP with its recovery codes, and passkeys) on SQLite and PostgreSQL:
// only the operator may, not on their own account; the user then signs in with the password alone; the audit log
// records who did it and what was cleared.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Secret, TOTP } from 'otpauth';
import { BACKENDS, type Dash, type DashUser, startDash } from '../../e2e/support/app-dash.ts';
import type { OperatorAuditPage } from '../wire.ts';

for (const backend of BACKENDS)
  describe(`operator clears a second factor (${backend})`, () => {
    let d: Dash;
    let op: DashUser;
    let bob: DashUser;
    before(async () => {
      d = await startDash(backend);
      op = await d.newUser(0);
      bob = await d.newUser(0);
    });
    after(() => d?.close());

    const clear = (id: string, who: DashUser) =>
      d.call(d.routes.operatorClearSecondFactor, `/operator/accounts/${id}/clear-second-factor`, { method: 'POST', browser: who.browser }, { id });
    const signIn = () =>
      d.call(d.routes.signIn, '/auth/sign-in', {
        method: 'POST',
        body: { email: bob.email, password: 'correct horse battery staple' },
        browser: { ip: '192.0.2.40' },
      });

    test('TOTP and passkeys are removed after which the password alone signs in; audited', async () => {
      const begin = await d.call(d.routes.beginTotp, '/account/two-factor/totp', { method: 'POST', browser: bob.browser });
      assert.equal(begin.status, 200, begin.text);
      const code = new TOTP({ secret: Secret.fromBase32(begin.json.secret) }).generate();
      const confirm = await d.call(d.routes.confirmTotp, '/account/two-factor/totp/confirm', { method: 'POST', body: { code }, browser: bob.browser });
      assert.equal(confirm.status, 200, confirm.text);
      await d.h.svc.store.run('INSERT INTO passkeys (id, user_id, public_key, counter, transports, name, created_at) VALUES ($1, $2, $3, 0, $4, $5, $6)', [
        `cred-${Date.now()}`,
        bob.user.id,
        'AAAA',
        '',
        'phone',
        Date.now(),
      ]);
      assert.equal((await signIn()).json.secondFactor, 'totp', 'the second step is asked before');

      // Nobody but the operator; not the operator's own.
      assert.equal((await clear(bob.user.accountId, bob)).status, 403);
      const own = await clear(op.user.accountId, op);
      assert.equal(own.status, 400);
      assert.match(own.json.error, /in Settings/);

      const r = await clear(bob.user.accountId, op);
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(r.json, { email: bob.email, totp: true, passkeys: 1 });
      const after = await signIn();
      assert.equal(after.status, 200, after.text);
      assert.equal(after.json.secondFactor, undefined);
      assert.equal(after.json.user.id, bob.user.id, 'the password alone signs in');
      const status = await d.call(d.routes.twoFactor, '/account/two-factor', { browser: bob.browser });
      assert.equal(status.json.totp, false);
      assert.equal((await d.call(d.routes.passkeys, '/account/passkeys', { browser: bob.browser })).json.passkeys.length, 0);
      const recovery = await d.h.svc.store.get<{ n: number | string }>('SELECT COUNT(*) AS n FROM recovery_codes WHERE user_id = $1', [bob.user.id]);
      assert.equal(Number(recovery?.n), 0);

      const audit = await d.call(d.routes.operatorAudit, `/operator/audit?accountId=${bob.user.accountId}`, { browser: op.browser });
      const entry = (audit.json as OperatorAuditPage).entries.find((e) => e.action === 'second_factor_clear');
      assert.ok(entry, audit.text);
      assert.equal(entry.actor, op.email);
      assert.deepEqual(entry.details, { email: bob.email, totp: true, passkeys: 1 });

      const again = await clear(bob.user.accountId, op);
      assert.deepEqual(again.json, { email: bob.email, totp: false, passkeys: 0 });
    });
  });
