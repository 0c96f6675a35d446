// Passkey routes on a real service, on SQLite and PostgreSQL: the options name this server's public host as the
// relying party and leave a single-use challenge; registration answers that do not verify, unknown passkeys and
// malformed bodies are clear 4xx; a user removes only their own passkeys. (Registering and signing in with a real
// authenticator is Chromium's part: e2e/browser/passkeys.test.ts.)
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { type Browser, caller, cookieFrom } from '../../e2e/support/app-requests.ts';
import { startHarness } from '../../e2e/support/harness.ts';
import { createTestDatabase } from '../../e2e/support/pg.ts';
import { BACKENDS } from '../../e2e/support/stores.ts';

const password = 'correct horse battery';
let n = 0;

for (const backend of BACKENDS)
  describe(`passkey routes (${backend})`, () => {
    let h: Awaited<ReturnType<typeof startHarness>>;
    let drop: (() => Promise<void>) | undefined;
    let routes: NonNullable<typeof h.app>['routes'];
    let call: ReturnType<typeof caller>;

    before(async () => {
      let databaseUrl: string | undefined;
      if (backend === 'postgres') ({ url: databaseUrl, drop } = await createTestDatabase());
      h = await startHarness({ app: true, databaseUrl, env: { LAGOON_PUBLIC_URL: 'https://chat.example.com' } });
      routes = h.app!.routes;
      call = caller(h.svc.store);
    });
    after(async () => {
      await h?.close();
      await drop?.();
    });

    async function signUp(): Promise<Browser & { email: string; id: string }> {
      const email = `pk${++n}-${Date.now()}@example.com`;
      const r = await call(routes.signUp, '/auth/sign-up', { method: 'POST', body: { email, password }, browser: { ip: `198.51.100.${n}` } });
      assert.equal(r.status, 201, r.text);
      return { ip: `198.51.100.${n}`, email, id: r.json.user.id, cookie: cookieFrom(r), csrf: r.json.csrfToken };
    }

    test('registration options: this server as relying party, the user named, a stored challenge, resident key and UV required', async () => {
      const b = await signUp();
      const r = await call(routes.passkeyOptions, '/account/passkeys/options', { method: 'POST', browser: b });
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(r.json.rp, { name: 'Lagoon', id: 'chat.example.com' });
      assert.equal(r.json.user.name, b.email);
      assert.equal(r.json.authenticatorSelection.residentKey, 'required');
      assert.equal(r.json.authenticatorSelection.userVerification, 'required');
      const stored = await h.svc.store.get<{ kind: string; user_id: string }>('SELECT kind, user_id FROM webauthn_challenges WHERE challenge = $1', [
        r.json.challenge,
      ]);
      assert.deepEqual({ ...stored }, { kind: 'register', user_id: b.id });
      const list = await call(routes.passkeys, '/account/passkeys', { browser: b });
      assert.deepEqual(list.json, { passkeys: [], rpId: 'chat.example.com' });
      const noCsrf = await call(routes.passkeyOptions, '/account/passkeys/options', { method: 'POST', browser: b, noCsrf: true });
      assert.equal(noCsrf.status, 403);
    });

    test('a registration answer that does not verify is a 400; a malformed body too', async () => {
      const b = await signUp();
      const opts = await call(routes.passkeyOptions, '/account/passkeys/options', { method: 'POST', browser: b });
      const clientData = Buffer.from(JSON.stringify({ type: 'webauthn.create', challenge: opts.json.challenge, origin: 'https://evil.example' })).toString(
        'base64url',
      );
      const forged = {
        id: 'AAAA',
        rawId: 'AAAA',
        type: 'public-key',
        response: { clientDataJSON: clientData, attestationObject: 'AAAA' },
        clientExtensionResults: {},
      };
      const r = await call(routes.addPasskey, '/account/passkeys', { method: 'POST', body: { response: forged }, browser: b });
      assert.deepEqual([r.status, r.json.param], [400, 'response']);
      const bad = await call(routes.addPasskey, '/account/passkeys', { method: 'POST', body: { response: 'nope' }, browser: b });
      assert.equal(bad.status, 400);
      assert.equal((await h.svc.store.all('SELECT id FROM passkeys')).length, 0);
    });

    test('sign-in options need no session; an unknown passkey is a 401; a foreign origin is refused', async () => {
      const o = await call(routes.passkeySignInOptions, '/auth/passkey/options', { method: 'POST' });
      assert.equal(o.status, 200, o.text);
      assert.equal(o.json.rpId, 'chat.example.com');
      assert.equal(o.json.userVerification, 'required');
      assert.equal(o.json.allowCredentials, undefined, 'discoverable: any passkey of this site');
      const unknown = {
        id: crypto.randomBytes(16).toString('base64url'),
        rawId: 'x',
        type: 'public-key',
        response: { clientDataJSON: 'x', authenticatorData: 'x', signature: 'x' },
        clientExtensionResults: {},
      };
      const r = await call(routes.passkeySignIn, '/auth/passkey', { method: 'POST', body: { response: unknown } });
      assert.deepEqual([r.status, r.json.code], [401, 'AUTHENTICATION_FAILED']);
      assert.equal(r.headers.get('set-cookie'), null);
      const foreign = await call(routes.passkeySignIn, '/auth/passkey', {
        method: 'POST',
        body: { response: unknown },
        headers: { origin: 'https://evil.example' },
      });
      assert.equal(foreign.status, 403);
    });

    test('a user removes only their own passkeys', async () => {
      const a = await signUp();
      const b = await signUp();
      await h.svc.store.run("INSERT INTO passkeys (id, user_id, public_key, created_at) VALUES ($1, $2, 'x', $3)", [`cred-${n}`, a.id, Date.now()]);
      const other = await call(routes.deletePasskey, `/account/passkeys/cred-${n}`, { method: 'DELETE', browser: b }, { id: `cred-${n}` });
      assert.equal(other.status, 404);
      const own = await call(routes.deletePasskey, `/account/passkeys/cred-${n}`, { method: 'DELETE', browser: a }, { id: `cred-${n}` });
      assert.equal(own.status, 204);
    });
  });
