// Requests cheaper than a micro-dollar through the real API (issue 28: 16 of 16 embeddings were billed 0): each
// settlement carries the fraction it does not charge, so sixteen requests of 0.32 µ$ cost 5 µ$, the balance and the
// usage rows agree, and the rounded cost each answer reports stays what it was.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type Harness, post, scriptedEmbeddingModel, startHarness } from '../support/harness.ts';
import { getBalances } from '../../lib/billing/ledger.ts';

let h: Harness;
before(async () => {
  // 0.08 USD per million tokens: an input of 4 tokens costs 0.32 micro-dollars.
  h = await startHarness({
    models: (url) => [scriptedEmbeddingModel(url, { id: 'cheap-embed', pricing: { input_usd: 0.08, output_usd: 0, input_diem: 0.08, output_diem: 0 } })],
  });
});
after(() => h?.close());

test('sixteen embeddings of a fraction of a micro-dollar each are billed their sum, not 0', async () => {
  const { key, accountId } = await h.newAccount({ usd: 1 });
  const before = (await getBalances(h.svc.store, accountId)).usd;
  let tokens = 0;
  for (let i = 0; i < 16; i++) {
    const r = await post(h, '/embeddings', key, { model: 'cheap-embed', input: 'four tokens of text' });
    assert.equal(r.status, 200, r.text);
    tokens += r.json.usage.prompt_tokens;
  }
  await h.svc.ledger.drain();
  const rows = await h.svc.store.all<{ usd: number | string }>('SELECT usd FROM usage WHERE account_id = $1', [accountId]);
  const billed = rows.reduce((n, r) => n + Number(r.usd), 0);
  assert.equal(billed, Math.floor(tokens * 0.08 + 1e-9), `${tokens} tokens at 0.08 µ$`);
  assert.ok(billed > 0, 'no longer free');
  assert.equal(before - (await getBalances(h.svc.store, accountId)).usd, billed);
});
