// API key management and per-key consumption limits, on the embedded store and on PostgreSQL.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Harness, post, scriptedModel, startHarness } from '../support/harness.ts';
import { createTestDatabase } from '../support/pg.ts';

async function call(h: Harness, method: string, path: string, key: string, body?: unknown) {
  const res = await fetch(`${h.base}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : undefined };
}

for (const backend of ['sqlite', 'postgres'] as const) {
  describe(`API keys on ${backend}`, () => {
    let h: Harness;
    let admin: string;
    let inference: string;
    let dropDb: (() => Promise<void>) | undefined;

    before(async () => {
      let databaseUrl: string | undefined;
      if (backend === 'postgres') {
        const db = await createTestDatabase();
        databaseUrl = db.url;
        dropDb = db.drop;
      }
      // Output-only pricing, so a [[tokens:100]] answer costs exactly 100 micro-units (0.0001).
      h = await startHarness({
        databaseUrl,
        models: (url) => [scriptedModel('metered', url, { pricing: { input_usd: 0, output_usd: 1, input_diem: 0, output_diem: 1 } })],
      });
      const a = await h.newAccount({ usd: 10, keyType: 'ADMIN' });
      admin = a.key;
      const created = await call(h, 'POST', '/api_keys', admin, { apiKeyType: 'INFERENCE', description: 'worker' });
      inference = created.json.data.apiKey;
    });
    after(async () => {
      await h.close();
      await dropDb?.();
    });

    test('POST creates a key and shows the secret once; GET lists non-expired keys newest first', async () => {
      const r = await call(h, 'POST', '/api_keys', admin, {
        apiKeyType: 'INFERENCE',
        description: 'ci bot',
        expiresAt: '2099-01-01',
        consumptionLimit: { usd: 5 },
        limitPeriod: 'MONTH',
      });
      assert.equal(r.status, 200);
      assert.equal(r.json.success, true);
      const d = r.json.data;
      assert.match(d.apiKey, /^lgn_inf_/);
      assert.deepEqual([d.apiKeyType, d.description, d.expiresAt, d.limitPeriod], ['INFERENCE', 'ci bot', '2099-01-01T00:00:00.000Z', 'MONTH']);
      assert.deepEqual(d.consumptionLimit, { usd: 5, diem: null, vcu: null });
      assert.equal(d.modelPrivacy, 'ALL', 'the public default');
      const list = await call(h, 'GET', '/api_keys', admin);
      assert.equal(list.json.object, 'list');
      assert.equal(list.json.data[0].id, d.id);
      const k = list.json.data[0];
      for (const field of [
        'id',
        'apiKeyType',
        'description',
        'createdAt',
        'expiresAt',
        'lastUsedAt',
        'last6Chars',
        'consumptionLimits',
        'limitPeriod',
        'modelPrivacy',
        'usage',
        'currentPeriodUsage',
      ]) {
        assert.ok(field in k, field);
      }
      assert.equal(k.last6Chars, d.apiKey.slice(-6));
      assert.deepEqual(k.usage.trailingSevenDays, { usd: '0.0000', diem: '0.0000', vcu: '0.0000' });
      assert.ok(!JSON.stringify(list.json).includes(d.apiKey), 'the secret is never listed');
      const one = await call(h, 'GET', `/api_keys/${d.id}`, admin);
      assert.equal(one.json.data.description, 'ci bot');
      // The new key works.
      const chat = await post(h, '/chat/completions', d.apiKey, { model: 'metered', messages: [{ role: 'user', content: 'hi' }] });
      assert.equal(chat.status, 200);
    });

    test('an INFERENCE key on the admin endpoints gets 401 "Admin API key required"', async () => {
      for (const [method, path] of [
        ['GET', '/api_keys'],
        ['POST', '/api_keys'],
        ['PATCH', '/api_keys'],
        ['DELETE', '/api_keys?id=x'],
        ['GET', '/api_keys/x'],
      ]) {
        const r = await call(h, method, path, inference, method === 'GET' || method === 'DELETE' ? undefined : {});
        assert.equal(r.status, 401, `${method} ${path}`);
        assert.equal(r.json.error, 'Admin API key required');
      }
    });

    test('bad input is a 400 naming the field', async () => {
      for (const body of [
        { apiKeyType: 'ROOT', description: 'x' },
        { apiKeyType: 'ADMIN', description: 'x'.repeat(65) },
        { apiKeyType: 'ADMIN', description: 'x', expiresAt: 'tomorrow' },
        { apiKeyType: 'ADMIN', description: 'x', expiresAt: '2001-01-01' },
        { apiKeyType: 'ADMIN', description: 'x', consumptionLimit: { usd: -1 } },
        { apiKeyType: 'ADMIN', description: 'x', modelPrivacy: 'SECRET' },
        { apiKeyType: 'ADMIN' },
      ]) {
        const r = await call(h, 'POST', '/api_keys', admin, body);
        assert.equal(r.status, 400, JSON.stringify(body));
        assert.equal(r.json.code, 'INVALID_REQUEST');
      }
      const typeChange = await call(h, 'PATCH', '/api_keys', admin, { id: 'x', apiKeyType: 'ADMIN' });
      assert.equal(typeChange.status, 400);
      assert.match(typeChange.json.error, /type cannot change/);
      assert.equal((await call(h, 'PATCH', '/api_keys', admin, { id: 'no-such-key', description: 'y' })).status, 400);
      assert.equal((await call(h, 'DELETE', '/api_keys', admin)).status, 400);
      assert.equal((await call(h, 'GET', '/api_keys/no-such-key', admin)).status, 404);
    });

    test('PATCH changes description, expiry and limits, never the type', async () => {
      const { json } = await call(h, 'POST', '/api_keys', admin, { apiKeyType: 'INFERENCE', description: 'before', consumptionLimit: { usd: 1, diem: 2 } });
      const id = json.data.id;
      const r = await call(h, 'PATCH', '/api_keys', admin, {
        id,
        description: 'after',
        expiresAt: '2098-05-01T10:00:00Z',
        consumptionLimit: { usd: null },
        limitPeriod: 'LIFETIME',
      });
      assert.equal(r.status, 200);
      assert.equal(r.json.data.description, 'after');
      assert.equal(r.json.data.expiresAt, '2098-05-01T10:00:00.000Z');
      assert.deepEqual(r.json.data.consumptionLimits, { usd: null, diem: 2, vcu: 2 });
      assert.equal(r.json.data.limitPeriod, 'LIFETIME');
      assert.equal(r.json.data.apiKeyType, 'INFERENCE');
      const cleared = await call(h, 'PATCH', '/api_keys', admin, { id, expiresAt: '', consumptionLimit: null });
      assert.equal(cleared.json.data.expiresAt, null);
      assert.deepEqual(cleared.json.data.consumptionLimits, { usd: null, diem: null, vcu: null });
      assert.equal('currentPeriodUsage' in cleared.json.data, false);
    });

    test('modelPrivacy: set at creation, changed by PATCH (the public key object in answer), stored, and validated', async () => {
      const created = await call(h, 'POST', '/api_keys', admin, { apiKeyType: 'INFERENCE', description: 'private', modelPrivacy: 'PRIVATE_TEXT' });
      assert.equal(created.status, 200);
      assert.equal(created.json.data.modelPrivacy, 'PRIVATE_TEXT');
      const id = created.json.data.id;
      assert.equal((await call(h, 'GET', `/api_keys/${id}`, admin)).json.data.modelPrivacy, 'PRIVATE_TEXT');
      const patched = await call(h, 'PATCH', '/api_keys', admin, { id, modelPrivacy: 'PRIVATE_ONLY' });
      assert.equal(patched.status, 200);
      assert.equal(patched.json.success, true);
      // PATCH answers the whole key object, as GET does.
      assert.deepEqual(patched.json.data, (await call(h, 'GET', `/api_keys/${id}`, admin)).json.data);
      assert.equal(patched.json.data.modelPrivacy, 'PRIVATE_ONLY');
      const listed = (await call(h, 'GET', '/api_keys', admin)).json.data.find((k: any) => k.id === id);
      assert.equal(listed.modelPrivacy, 'PRIVATE_ONLY');
      const bad = await call(h, 'PATCH', '/api_keys', admin, { id, modelPrivacy: 'NONE' });
      assert.equal(bad.status, 400);
      assert.ok(JSON.stringify(bad.json).includes('modelPrivacy'), JSON.stringify(bad.json));
    });

    test('usage.trailingSevenDays reports what the key spent, with vcu as the DIEM figure', async () => {
      const acct = await h.newAccount({ usd: 0, diemDaily: 1, keyType: 'ADMIN' });
      const { json } = await call(h, 'POST', '/api_keys', acct.key, { apiKeyType: 'INFERENCE', description: 'diem spender' });
      const r = await post(h, '/chat/completions', json.data.apiKey, {
        model: 'metered',
        max_tokens: 100,
        messages: [{ role: 'user', content: '[[tokens:100]]' }],
      });
      assert.deepEqual(r.json.cost, { usd: 0, diem: 0.0001 });
      await h.svc.ledger.drain();
      const k = (await call(h, 'GET', `/api_keys/${json.data.id}`, acct.key)).json.data;
      assert.deepEqual(k.usage.trailingSevenDays, { usd: '0.0000', diem: '0.0001', vcu: '0.0001' });
    });

    test('DELETE revokes at once: the key stops working and leaves the list', async () => {
      const { json } = await call(h, 'POST', '/api_keys', admin, { apiKeyType: 'INFERENCE', description: 'temp' });
      assert.equal((await post(h, '/chat/completions', json.data.apiKey, { model: 'metered', messages: [{ role: 'user', content: 'x' }] })).status, 200);
      assert.deepEqual((await call(h, 'DELETE', `/api_keys?id=${json.data.id}`, admin)).json, { success: true });
      assert.equal((await post(h, '/chat/completions', json.data.apiKey, { model: 'metered', messages: [{ role: 'user', content: 'x' }] })).status, 401);
      assert.ok(!(await call(h, 'GET', '/api_keys', admin)).json.data.some((k: any) => k.id === json.data.id));
      assert.equal((await call(h, 'DELETE', `/api_keys?id=${json.data.id}`, admin)).status, 400);
    });

    test('a key whose USD limit for the period is spent gets 402 naming the limit; concurrency cannot overshoot it', async () => {
      // Limit 0.001 USD = exactly 10 requests of 0.0001.
      const { json } = await call(h, 'POST', '/api_keys', admin, { apiKeyType: 'INFERENCE', description: 'capped', consumptionLimit: { usd: 0.001 } });
      const key = json.data.apiKey;
      const run = () =>
        post(h, '/chat/completions', key, { model: 'metered', max_tokens: 100, messages: [{ role: 'user', content: '[[tokens:100]] [[delay:20]]' }] });
      const results = await Promise.all(Array.from({ length: 30 }, run));
      assert.equal(results.filter((r) => r.status === 200).length, 10);
      const refused = results.find((r) => r.status === 402)!;
      assert.equal(refused.json.code, 'API_KEY_USD_SPEND_LIMIT_EXCEEDED');
      assert.match(refused.json.error, /USD consumption limit of 0\.001000 USD per day/);
      await h.svc.ledger.drain();
      const listed = (await call(h, 'GET', `/api_keys/${json.data.id}`, admin)).json.data;
      assert.deepEqual(listed.currentPeriodUsage, { usd: '0.001000', diem: '0.000000' });
      assert.equal(listed.usage.trailingSevenDays.usd, '0.0010');
      // Raising the limit lets the key spend again.
      await call(h, 'PATCH', '/api_keys', admin, { id: json.data.id, consumptionLimit: { usd: 1 } });
      assert.equal((await run()).status, 200);
    });

    test('a DIEM cap moves the charge to USD; with no USD left the 402 names the DIEM limit', async () => {
      const acct = await h.newAccount({ usd: 0, diemDaily: 1, keyType: 'ADMIN' });
      const { json } = await call(h, 'POST', '/api_keys', acct.key, {
        apiKeyType: 'INFERENCE',
        description: 'diem-capped',
        consumptionLimit: { diem: 0.0002 },
      });
      const run = () =>
        post(h, '/chat/completions', json.data.apiKey, { model: 'metered', max_tokens: 100, messages: [{ role: 'user', content: '[[tokens:100]]' }] });
      assert.deepEqual((await run()).json.cost, { usd: 0, diem: 0.0001 });
      assert.deepEqual((await run()).json.cost, { usd: 0, diem: 0.0001 });
      await h.svc.ledger.drain();
      const third = await run();
      assert.equal(third.status, 402);
      assert.equal(third.json.code, 'API_KEY_DIEM_SPEND_LIMIT_EXCEEDED');
    });

    test('keys are scoped to their account', async () => {
      const other = await h.newAccount({ keyType: 'ADMIN' });
      const mine = (await call(h, 'GET', '/api_keys', admin)).json.data[0].id;
      assert.equal((await call(h, 'GET', `/api_keys/${mine}`, other.key)).status, 404);
      assert.equal((await call(h, 'PATCH', '/api_keys', other.key, { id: mine, description: 'stolen' })).status, 400);
      assert.equal((await call(h, 'DELETE', `/api_keys?id=${mine}`, other.key)).status, 400);
      assert.ok(!(await call(h, 'GET', '/api_keys', other.key)).json.data.some((k: any) => k.id === mine));
    });
  });
}
