// The key pages' routes on a real service, SQLite and PostgreSQL: a key created here works on the public API, its
// secret comes back once (never in a list, an edit or a revoke), its meter moves with what it spends, edits and the
// API's rules are the API's own, the app's own key cannot be revoked, a revoked key is refused by the API, another
// user's key is not found, CSRF is required, and a wallet session may not mint ADMIN keys.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { get, post } from '../../e2e/support/harness.ts';
import { createSession, SESSION_COOKIE } from '../users/sessions.ts';
import { ensureWalletUser } from '../users/wallet-users.ts';
import { ensureWallet } from '../wallet/wallets.ts';
import type { ApiKeysReport, AppApiKey, CreatedApiKey } from '../wire.ts';
import { appRequest, assertNoKeyMaterial, type Browser, storedSecrets } from '../../e2e/support/app-requests.ts';
import { apiChat, BACKENDS, type Dash, type DashUser, startDash } from '../../e2e/support/app-dash.ts';

const SECRET_SHAPE = /^lgn_(inf|adm)_[A-Za-z0-9]{40}$/;

for (const backend of BACKENDS)
  describe(`API key routes (${backend})`, () => {
    let d: Dash;
    let alice: DashUser;
    let bob: DashUser;
    const created: string[] = [];

    before(async () => {
      d = await startDash(backend);
      alice = await d.newUser(10);
      bob = await d.newUser(10);
    });
    after(() => d?.close());

    /** The one call that may carry a secret: the create. Its body is checked to hold only the new key's secret. */
    async function create(browser: Browser, body: unknown): Promise<{ status: number; json: any }> {
      const res = await d.routes.createApiKey(appRequest('/api-keys', { method: 'POST', body, browser }), {}, { ip: browser.ip });
      const text = await res.text();
      const json = JSON.parse(text);
      assert.equal(res.headers.get('cache-control'), 'no-store');
      if (res.status === 201) {
        created.push(json.secret);
        assertNoKeyMaterial(text.replace(json.secret, ''), await storedSecrets(d.h.svc.store), 'POST /api-keys (beside the new secret)');
      } else assertNoKeyMaterial(text, await storedSecrets(d.h.svc.store), 'POST /api-keys');
      return { status: res.status, json };
    }
    const list = async (u: DashUser) => {
      const r = await d.call(d.routes.listApiKeys, '/api-keys', { browser: u.browser });
      assert.equal(r.status, 200, r.text);
      for (const s of created) assert.ok(!r.text.includes(s), 'a secret in the key list');
      return r.json as ApiKeysReport;
    };
    const keyIn = async (u: DashUser, id: string) => (await list(u)).keys.find((k) => k.id === id) as AppApiKey;

    test('create: the secret once, a key that works on the API, whose meter moves with its spend', async () => {
      const r = await create(alice.browser, {
        apiKeyType: 'INFERENCE',
        description: 'reef app',
        expiresAt: new Date(Date.now() + 30 * 86_400_000).toISOString(),
        consumptionLimit: { usd: 1.5 },
        limitPeriod: 'MONTH',
      });
      assert.equal(r.status, 201, JSON.stringify(r.json));
      const { key, secret } = r.json as CreatedApiKey;
      assert.match(secret, SECRET_SHAPE);
      assert.equal(key.description, 'reef app');
      assert.equal(key.type, 'INFERENCE');
      assert.deepEqual(key.cap, { usd: 1.5, diem: null, period: 'MONTH', spentUsd: 0, spentDiem: 0 });
      assert.ok(key.expiresAt && key.expiresAt > Date.now());

      await apiChat(d.h, secret, 'scripted-model', 'Clownfish.');
      await d.h.svc.ledger.drain();
      const after = await keyIn(alice, key.id);
      assert.ok(after.cap && after.cap.spentUsd > 0, `the meter moved: ${JSON.stringify(after.cap)}`);
      assert.ok(after.lastSevenDays.usd > 0 && after.lastUsedAt !== null);
      const report = await list(alice);
      assert.equal(report.canCreateAdmin, true);
      assert.equal(report.maxActive, 500);
      assert.ok(
        report.keys.some((k) => k.browserApp),
        'the app’s own key is listed and marked',
      );
    });

    test('ADMIN keys: an email user creates one, and it manages the account on the API', async () => {
      const r = await create(alice.browser, { apiKeyType: 'ADMIN', description: 'ops' });
      assert.equal(r.status, 201);
      assert.match(r.json.secret, /^lgn_adm_/);
      const keys = await get(d.h, '/api_keys', r.json.secret);
      assert.equal(keys.status, 200, keys.text);
      assert.ok(keys.json.data.some((k: { id: string }) => k.id === r.json.key.id));
    });

    test('the API’s rules, as a 400 naming the field; the key type never changes', async () => {
      const bad: [unknown, string][] = [
        [{ apiKeyType: 'INFERENCE', description: 'x'.repeat(65) }, 'description'],
        [{ apiKeyType: 'INFERENCE', description: 'x', expiresAt: '2001-01-01' }, 'expiresAt'],
        [{ apiKeyType: 'INFERENCE', description: 'x', consumptionLimit: { usd: -1 } }, 'consumptionLimit'],
        [{ apiKeyType: 'SUPER', description: 'x' }, 'apiKeyType'],
        [{ apiKeyType: 'INFERENCE', description: 'x', limitPeriod: 'FORTNIGHT' }, 'limitPeriod'],
        [{ apiKeyType: 'INFERENCE', description: 'x', extra: 1 }, ''],
        [{ description: 'x' }, 'apiKeyType'],
      ];
      for (const [body, field] of bad) {
        const r = await create(alice.browser, body);
        assert.equal(r.status, 400, JSON.stringify(body));
        assert.equal(r.json.code, 'INVALID_REQUEST');
        if (field) assert.match(r.json.error, new RegExp(field), JSON.stringify(r.json));
      }
      const notJson = await d.call(d.routes.createApiKey, '/api-keys', {
        method: 'POST',
        body: 'a=1',
        browser: alice.browser,
        headers: { 'content-type': 'text/plain' },
      });
      assert.equal(notJson.status, 415);
      const { json } = await create(alice.browser, { apiKeyType: 'INFERENCE', description: 'to edit' });
      const id = json.key.id;
      for (const body of [{ apiKeyType: 'ADMIN' }, { id }, { description: 'y'.repeat(65) }, { consumptionLimit: { usd: 'lots' } }]) {
        const r = await d.call(d.routes.updateApiKey, `/api-keys/${id}`, { method: 'PATCH', body, browser: alice.browser }, { id });
        assert.equal(r.status, 400, `${JSON.stringify(body)}: ${r.text}`);
      }
    });

    test('edit: description, expiry and caps; null clears them', async () => {
      const { json } = await create(alice.browser, { apiKeyType: 'INFERENCE', description: 'before' });
      const id = json.key.id;
      const patch = (body: unknown) => d.call(d.routes.updateApiKey, `/api-keys/${id}`, { method: 'PATCH', body, browser: alice.browser }, { id });
      const r = await patch({ description: 'after', consumptionLimit: { usd: 2, diem: 3 }, limitPeriod: 'EPOCH', expiresAt: '2099-01-01' });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.json.key.description, 'after');
      assert.deepEqual(r.json.key.cap, { usd: 2, diem: 3, period: 'EPOCH', spentUsd: 0, spentDiem: 0 });
      assert.equal(r.json.key.expiresAt, Date.parse('2099-01-01T00:00:00Z'));
      const cleared = await patch({ consumptionLimit: null, expiresAt: null });
      assert.equal(cleared.status, 200);
      assert.equal(cleared.json.key.cap, null);
      assert.equal(cleared.json.key.expiresAt, null);
    });

    test('revoke: the API refuses the key at once; the app’s own key cannot be revoked; twice is a 404', async () => {
      const { json } = await create(alice.browser, { apiKeyType: 'INFERENCE', description: 'short-lived' });
      await apiChat(d.h, json.secret);
      const id = json.key.id;
      const r = await d.call(d.routes.revokeApiKey, `/api-keys/${id}`, { method: 'DELETE', browser: alice.browser }, { id });
      assert.equal(r.status, 200, r.text);
      assert.ok(r.json.key.revokedAt > 0);
      const refused = await post(d.h, '/chat/completions', json.secret, { model: 'scripted-model', messages: [{ role: 'user', content: 'hi' }] });
      assert.equal(refused.status, 401);
      const again = await d.call(d.routes.revokeApiKey, `/api-keys/${id}`, { method: 'DELETE', browser: alice.browser }, { id });
      assert.equal(again.status, 404);
      const own = (await list(alice)).keys.find((k) => k.browserApp)!;
      const refusedOwn = await d.call(d.routes.revokeApiKey, `/api-keys/${own.id}`, { method: 'DELETE', browser: alice.browser }, { id: own.id });
      assert.equal(refusedOwn.status, 400);
      assert.match(refusedOwn.json.error, /chats with/);
    });

    test('another user’s key is not found (404) to edit or revoke, and never listed', async () => {
      const { json } = await create(alice.browser, { apiKeyType: 'INFERENCE', description: 'alice only' });
      const id = json.key.id;
      const edit = await d.call(d.routes.updateApiKey, `/api-keys/${id}`, { method: 'PATCH', body: { description: 'mine now' }, browser: bob.browser }, { id });
      assert.equal(edit.status, 404);
      const revoke = await d.call(d.routes.revokeApiKey, `/api-keys/${id}`, { method: 'DELETE', browser: bob.browser }, { id });
      assert.equal(revoke.status, 404);
      assert.ok(!(await list(bob)).keys.some((k) => k.id === id));
      assert.equal((await keyIn(alice, id)).description, 'alice only');
      assert.equal((await keyIn(alice, id)).revokedAt, null);
    });

    test('CSRF: every change needs the session’s token; no session is a 401', async () => {
      const { json } = await create(alice.browser, { apiKeyType: 'INFERENCE', description: 'csrf' });
      const id = json.key.id;
      const noCsrf = { ...alice.browser, csrf: undefined };
      const c = await d.call(d.routes.createApiKey, '/api-keys', { method: 'POST', body: { apiKeyType: 'INFERENCE', description: 'x' }, browser: noCsrf });
      assert.equal(c.status, 403);
      const p = await d.call(d.routes.updateApiKey, `/api-keys/${id}`, { method: 'PATCH', body: { description: 'x' }, browser: noCsrf }, { id });
      assert.equal(p.status, 403);
      const r = await d.call(d.routes.revokeApiKey, `/api-keys/${id}`, { method: 'DELETE', browser: { ...alice.browser, csrf: 'x'.repeat(43) } }, { id });
      assert.equal(r.status, 403);
      assert.equal((await keyIn(alice, id)).revokedAt, null);
      assert.equal((await d.call(d.routes.listApiKeys, '/api-keys')).status, 401);
    });

    test('a wallet session creates INFERENCE keys only', async () => {
      const wallet = await ensureWallet(d.h.svc.store, 'eip155', `0x${'cd'.repeat(20)}`);
      const user = await ensureWalletUser(d.h.svc.store, wallet);
      const s = await createSession(d.h.svc.store, user.id);
      const browser = { ip: '192.0.2.40', cookie: `${SESSION_COOKIE}=${s.token}`, csrf: s.csrfToken };
      const admin = await create(browser, { apiKeyType: 'ADMIN', description: 'nope' });
      assert.equal(admin.status, 403);
      const inference = await create(browser, { apiKeyType: 'INFERENCE', description: 'wallet key' });
      assert.equal(inference.status, 201);
      const r = await d.call(d.routes.listApiKeys, '/api-keys', { browser });
      assert.equal(r.json.canCreateAdmin, false);
      assert.ok(
        r.json.keys.some((k: AppApiKey) => k.browserApp && k.id === wallet.keyId),
        'the wallet’s own key is the app’s',
      );
    });
  });
