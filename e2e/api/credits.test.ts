// Credit safety under concurrency, DIEM before USD, cached-token pricing, and the ledger matching usage rows.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { getBalances } from '../../lib/billing/ledger.ts';
import { type Harness, post, scriptedModel, startHarness } from '../support/harness.ts';

let h: Harness;
before(async () => {
  // Client, server and scripted upstream share this process: on a loaded machine it stalls for seconds at times, and
  // the harness models' 2 s deadlines would turn answers into 504s. These tests count money, not deadlines.
  const patient = (url: string) => ({ engine: { kind: 'openai', baseUrl: url, model: 'scripted', timeoutMs: 60_000, totalTimeoutMs: 120_000 } });
  h = await startHarness({
    models: (url) => [
      // Output-only pricing: a [[tokens:100]] answer with max_tokens 100 costs exactly its reservation (100 micro-USD).
      scriptedModel('metered', url, { pricing: { input_usd: 0, output_usd: 1, input_diem: 0, output_diem: 1 }, ...patient(url) }),
      // The prices of the harness's scripted-model and plain-model.
      scriptedModel('patient-scripted', url, patient(url)),
      scriptedModel('patient-plain', url, { pricing: { input_usd: 0.5, output_usd: 1, input_diem: 0.5, output_diem: 1 }, ...patient(url) }),
    ],
  });
});
after(() => h.close());

const metered = (key: string, stream = false) =>
  post(h, '/chat/completions', key, { model: 'metered', stream, max_tokens: 100, messages: [{ role: 'user', content: '[[tokens:100]] [[delay:30]]' }] });

for (const stream of [false, true]) {
  test(`50 concurrent ${stream ? 'streamed ' : ''}requests against a balance for 10: exactly 10 succeed, the balance ends at 0`, async () => {
    const { key, accountId } = await h.newAccount({ usd: 0.001 });
    const results = await Promise.all(Array.from({ length: 50 }, () => metered(key, stream)));
    const statuses = results.map((r) => r.status);
    assert.equal(statuses.filter((s) => s === 200).length, 10, statuses.join(','));
    assert.equal(statuses.filter((s) => s === 402).length, 40);
    // Refused while the ten held the credit: transient (CREDIT_HELD, with Retry-After); once they had spent it, gone.
    const refused = results.filter((r) => r.status === 402);
    for (const r of refused) {
      assert.ok(['CREDIT_HELD', 'INSUFFICIENT_BALANCE'].includes(r.json.code), r.json.code);
      assert.equal(r.headers.get('retry-after'), r.json.code === 'CREDIT_HELD' ? '5' : null);
    }
    assert.ok(
      refused.some((r) => r.json.code === 'CREDIT_HELD'),
      'the first refusals come while the ten still hold the credit',
    );
    await h.svc.ledger.drain();
    const b = await getBalances(h.svc.store, accountId);
    assert.deepEqual([b.usd, b.usdHeld], [0, 0]);
    const rows = await h.svc.store.all<any>('SELECT usd FROM usage WHERE account_id = $1', [accountId]);
    assert.equal(rows.length, 10);
    assert.equal(
      rows.reduce((s, r) => s + Number(r.usd), 0),
      1000,
    );
  });
}

test('the daily DIEM allowance is spent before USD, and the cost object shows the split', async () => {
  const { key, accountId } = await h.newAccount({ usd: 1, diemDaily: 0.00015 });
  const first = await metered(key);
  assert.deepEqual(first.json.cost, { usd: 0, diem: 0.0001 });
  assert.equal(first.headers.get('x-service-balance-diem'), '0.000150');
  const second = await metered(key); // 50 DIEM micro-units left cover half
  assert.deepEqual(second.json.cost, { usd: 0.00005, diem: 0.00005 });
  const third = await metered(key);
  assert.deepEqual(third.json.cost, { usd: 0.0001, diem: 0 });
  await h.svc.ledger.drain();
  const b = await getBalances(h.svc.store, accountId);
  assert.equal(b.diem, 0);
  assert.equal(b.usd, 1_000_000 - 150);
});

test('cached prompt tokens are billed at the cached price', async () => {
  const { key } = await h.newAccount({ usd: 1 });
  // plain-model: input 0.5, cached 0.1, output 1 USD per 1M tokens
  const r = await post(h, '/chat/completions', key, {
    model: 'plain-model',
    messages: [{ role: 'user', content: 'a b c d e f g h [[cached:6]] [[tokens:10]]' }],
  });
  const u = r.json.usage;
  assert.equal(u.prompt_tokens_details.cached_tokens, 6);
  const expected = Math.round((u.prompt_tokens - 6) * 0.5 + 6 * 0.1 + 10 * 1) / 1e6;
  assert.equal(r.json.cost.usd, expected);
});

test('ledger equals the sum of usage rows after a 200-request concurrent run with mixed models and keys', async () => {
  const accounts = await Promise.all([h.newAccount({ usd: 2 }), h.newAccount({ usd: 2, diemDaily: 0.001 })]);
  const { accountKeys } = await import('../../lib/auth/keys.ts');
  // Two more keys per account, so requests come from four keys over two accounts.
  const keys = [accounts[0].key, accounts[1].key];
  for (const a of accounts) keys.push((await accountKeys(h.svc.store, a.accountId).create({ type: 'INFERENCE' })).secret);
  const models = ['patient-scripted', 'patient-plain', 'metered'];
  const runs = Array.from({ length: 200 }, (_, i) =>
    post(h, '/chat/completions', keys[i % keys.length], {
      model: models[i % 3],
      stream: i % 4 === 0,
      messages: [{ role: 'user', content: `[[tokens:${5 + (i % 7)}]]${i % 10 === 0 ? ' [[status:500]]' : ''}` }],
    }),
  );
  const results = await Promise.all(runs);
  // Any other answer is named with its body, so a failure on a loaded machine says what the requests got.
  const others = results.filter((r) => r.status !== 200 && r.status !== 500).map((r) => `${r.status} ${JSON.stringify(r.json ?? r.text).slice(0, 200)}`);
  assert.deepEqual(others, []);
  assert.equal(results.filter((r) => r.status === 200).length, 180);
  assert.equal(results.filter((r) => r.status === 500).length, 20);
  await h.svc.ledger.drain();
  let rows = 0;
  for (const a of accounts) {
    const b = await getBalances(h.svc.store, a.accountId);
    const sums = await h.svc.store.get<any>(
      'SELECT COUNT(*) AS n, COALESCE(SUM(usd), 0) AS usd, COALESCE(SUM(diem), 0) AS diem FROM usage WHERE account_id = $1',
      [a.accountId],
    );
    const granted = await h.svc.store.get<any>('SELECT SUM(usd) AS usd FROM credit_grants WHERE account_id = $1', [a.accountId]);
    assert.equal(b.usdHeld, 0);
    assert.equal(b.usd + Number(sums.usd), Number(granted.usd));
    assert.equal(b.diem + Number(sums.diem), b.diemDaily);
    rows += Number(sums.n);
  }
  assert.equal(rows, 180, 'one usage row per successful request, none for failures');
});
