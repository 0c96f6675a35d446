// A key's own model list and weekly budgets (issue 33), on SQLite and PostgreSQL: a key made for some models runs
// only those (403 MODEL_NOT_ALLOWED_FOR_KEY before anything is held) and sees only those in /models; a WEEK cap
// counts from Monday 00:00 UTC and starts afresh the next week; with the public API's names both fields are refused.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { periodKey } from '../../lib/billing/key-limits.ts';
import { type Harness, scriptedModel, startHarness } from '../support/harness.ts';
import { createTestDatabase } from '../support/pg.ts';

async function call(h: Harness, method: string, path: string, key: string, body?: unknown, base = h.base) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : undefined };
}

const chat = (model: string) => ({ model, max_tokens: 120, messages: [{ role: 'user', content: '[[tokens:100]]' }] });

test('a WEEK period is the week from Monday 00:00 UTC', () => {
  const thursday = Date.UTC(2026, 10, 26, 15); // 26 Nov 2026 was a Thursday
  assert.equal(periodKey('WEEK', thursday), 'W2026-11-23');
  assert.equal(periodKey('WEEK', Date.UTC(2026, 10, 23, 0)), 'W2026-11-23', 'Monday 00:00 starts it');
  assert.equal(periodKey('WEEK', Date.UTC(2026, 10, 22, 23, 59)), 'W2026-11-16', 'Sunday night is the week before');
});

for (const backend of ['sqlite', 'postgres'] as const) {
  describe(`a key's models and weekly budget on ${backend}`, () => {
    let h: Harness;
    let admin: string;
    let dropDb: (() => Promise<void>) | undefined;
    before(async () => {
      let databaseUrl: string | undefined;
      if (backend === 'postgres') ({ url: databaseUrl, drop: dropDb } = await createTestDatabase());
      // Output-only pricing: a [[tokens:100]] answer costs exactly 100 micro-units.
      const price = { pricing: { input_usd: 0, output_usd: 1, input_diem: 0, output_diem: 1 } };
      h = await startHarness({ databaseUrl, models: (url) => [scriptedModel('cheap', url, price), scriptedModel('other', url, price)] });
      admin = (await h.newAccount({ usd: 10, keyType: 'ADMIN' })).key;
    });
    after(async () => {
      await h.close();
      await dropDb?.();
    });

    test('a key for some models runs only those and lists only those', async () => {
      const made = await call(h, 'POST', '/api_keys', admin, { apiKeyType: 'INFERENCE', description: 'cheap only', models: ['cheap'] });
      assert.equal(made.status, 200, JSON.stringify(made.json));
      assert.deepEqual(made.json.data.models, ['cheap']);
      const key = made.json.data.apiKey;
      assert.equal((await call(h, 'POST', '/chat/completions', key, chat('cheap'))).status, 200);
      const refused = await call(h, 'POST', '/chat/completions', key, chat('other'));
      assert.deepEqual([refused.status, refused.json.code], [403, 'MODEL_NOT_ALLOWED_FOR_KEY']);
      assert.match(refused.json.error, /only cheap/);
      const listed = await call(h, 'GET', '/models', key);
      assert.deepEqual(
        listed.json.data.map((m: { id: string }) => m.id).filter((id: string) => id === 'cheap' || id === 'other'),
        ['cheap'],
      );
      // Cleared, it runs any model again.
      const id = made.json.data.id;
      const cleared = await call(h, 'PATCH', '/api_keys', admin, { id, models: null });
      assert.equal(cleared.json.data.models, null);
      assert.equal((await call(h, 'POST', '/chat/completions', key, chat('other'))).status, 200);
      const bad = await call(h, 'POST', '/api_keys', admin, { apiKeyType: 'INFERENCE', description: 'x', models: [] });
      assert.equal(bad.status, 400, 'an empty list would be a key for nothing');
    });

    test('a WEEK cap stops the key within the week', async () => {
      const made = await call(h, 'POST', '/api_keys', admin, {
        apiKeyType: 'INFERENCE',
        description: 'weekly',
        consumptionLimit: { usd: 0.00015 },
        limitPeriod: 'WEEK',
      });
      assert.equal(made.json.data.limitPeriod, 'WEEK');
      const key = made.json.data.apiKey;
      assert.equal((await call(h, 'POST', '/chat/completions', key, chat('cheap'))).status, 200);
      await h.svc.ledger.drain();
      const second = await call(h, 'POST', '/chat/completions', key, chat('cheap'));
      assert.equal(second.status, 402, 'the week has 100 of 150 spent: a second 100 does not fit');
      assert.match(second.json.error, /per week/);
      const row = await h.svc.store.get<{ spent_period: string }>('SELECT spent_period FROM api_keys WHERE id = $1', [made.json.data.id]);
      assert.equal(row?.spent_period, periodKey('WEEK', Date.now()));
    });
  });
}

test('with the public API’s names, models and WEEK are refused', async () => {
  const h = await startHarness({ env: { LAGOON_WIRE_NAME: 'venice' } });
  try {
    const admin = (await h.newAccount({ usd: 1, keyType: 'ADMIN' })).key;
    const withModels = await call(h, 'POST', '/api_keys', admin, { apiKeyType: 'INFERENCE', description: 'x', models: ['scripted-model'] });
    assert.equal(withModels.status, 400);
    const weekly = await call(h, 'POST', '/api_keys', admin, { apiKeyType: 'INFERENCE', description: 'x', limitPeriod: 'WEEK' });
    assert.equal(weekly.status, 400);
    const plain = await call(h, 'POST', '/api_keys', admin, { apiKeyType: 'INFERENCE', description: 'x' });
    assert.equal(plain.status, 200);
    assert.ok(!('models' in plain.json.data), 'the public shape has no models field');
  } finally {
    await h.close();
  }
});
