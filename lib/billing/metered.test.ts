// The metered call on both stores: admitted, held at the quote of its worst case, settled exactly once with the
// units it used, released when it fails before any output, billed for its partial output when aborted midway.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { freshStore } from '../../e2e/support/stores.ts';
import { createAccount } from '../accounts/accounts.ts';
import type { ApiKey, Principal } from '../auth/keys.ts';
import { grantUsd } from './ledger.ts';
import { Ledger } from './ledger-service.ts';
import { quote, unitPrices } from './pricing.ts';
import type { Store } from '../db/store.ts';
import type { RateLimiter } from '../limits/rate-limiter.ts';
import { parseCatalogue } from '../models/catalogue.ts';
import { metered, openMeter } from './metered.ts';

const engine = { kind: 'openai', baseUrl: 'http://127.0.0.1:1/v1' };
const { byId } = parseCatalogue(
  {
    models: [
      { id: 'text', name: 'T', type: 'text', tier: 'XS', pricing: { input_usd: 1, output_usd: 2, input_diem: 1, output_diem: 2 }, context_length: 100, engine },
      {
        id: 'video',
        name: 'V',
        type: 'video',
        tier: 'XS',
        pricing: { input_usd: 0, output_usd: 0, input_diem: 0, output_diem: 0, per_second_usd: 0.05 },
        context_length: 100,
        engine,
      },
    ],
  },
  '/',
);
const text = byId.get('text')!;
const video = byId.get('video')!;

/** A rate limiter that admits everything and records what it was asked. */
function recordingLimiter() {
  const calls: (string | number)[][] = [];
  const limiter = {
    async admit(k: { modelId: string }, tokens: number) {
      calls.push(['admit', k.modelId, tokens]);
      return { headers: { 'x-ratelimit-remaining-requests': '9' }, finish: async (t: number) => void calls.push(['finish', t]) };
    },
  } as unknown as RateLimiter;
  return { limiter, calls };
}

for (const backend of ['sqlite', 'postgres'] as const) {
  describe(`metered calls on ${backend}`, () => {
    let store: Store;
    let dispose: () => Promise<void>;
    let ledger: Ledger;

    before(async () => {
      ({ store, dispose } = await freshStore(backend));
      ledger = new Ledger(store, { soleWriter: backend === 'sqlite' });
    });
    after(async () => {
      await ledger.drain();
      await dispose();
    });

    let n = 0;
    async function setup(usd = 10_000_000) {
      const account = await createAccount(store, `metered-${++n}`);
      if (usd) await grantUsd(store, account.id, usd);
      const key = { id: `key-${n}`, limitUsd: null, limitDiem: null } as ApiKey;
      const principal: Principal = { accountId: account.id, accountTier: 'default', keyId: key.id, keyType: 'INFERENCE', key };
      const rec = recordingLimiter();
      const ctx = { principal, requestId: `req-${backend}-${n}`, responseHeaders: {} as Record<string, string> };
      return { ...rec, deps: { ledger, store, limiter: rec.limiter }, ctx, accountId: account.id };
    }
    const row = (requestId: string) =>
      store.get<{ unit: string; quantity: number; prompt_tokens: number; completion_tokens: number; usd: number; endpoint: string; model_id: string }>(
        'SELECT unit, quantity, prompt_tokens, completion_tokens, usd, endpoint, model_id FROM usage WHERE request_id = $1',
        [requestId],
      );

    test('holds the quote of the worst case, settles once with the actual use, admits the token estimate', async () => {
      const { deps, ctx, calls, accountId } = await setup();
      const estimate = { promptTokens: 100, completionTokens: 50 };
      const meter = await openMeter(deps, ctx, { model: text, endpoint: '/chat/completions', estimate });
      assert.equal(meter.hold.usd, quote(unitPrices(text), estimate).usd);
      assert.equal(meter.hold.usd, 200);
      assert.equal(ctx.responseHeaders['x-ratelimit-remaining-requests'], '9');
      assert.equal(meter.open, true);
      const charged = meter.settle({ promptTokens: 80, completionTokens: 10 });
      assert.deepEqual(charged, { usd: 100, diem: 0 });
      assert.deepEqual(meter.settle({ promptTokens: 100, completionTokens: 50 }), charged, 'a second settle returns the first charge');
      meter.release();
      assert.equal(meter.open, false);
      await ledger.drain();
      const r = await row(ctx.requestId);
      assert.deepEqual(
        { ...r, quantity: Number(r!.quantity), usd: Number(r!.usd), prompt_tokens: Number(r!.prompt_tokens), completion_tokens: Number(r!.completion_tokens) },
        {
          unit: 'token',
          quantity: 90,
          prompt_tokens: 80,
          completion_tokens: 10,
          usd: 100,
          endpoint: '/chat/completions',
          model_id: 'text',
        },
      );
      const b = await ledger.balances(accountId);
      assert.deepEqual([b.usd, b.usdHeld], [10_000_000 - 100, 0]);
      assert.deepEqual(calls, [
        ['admit', 'text', 150],
        ['finish', 90],
      ]);
    });

    test('a run that fails before any output is released: nothing charged, no row, the tokens go back', async () => {
      const { deps, ctx, calls, accountId } = await setup();
      await assert.rejects(
        metered(deps, ctx, { model: text, endpoint: '/embeddings', estimate: { promptTokens: 40 } }, async () => {
          throw new Error('engine down');
        }),
        /engine down/,
      );
      await ledger.drain();
      assert.equal(await row(ctx.requestId), undefined);
      const b = await ledger.balances(accountId);
      assert.deepEqual([b.usd, b.usdHeld], [10_000_000, 0]);
      assert.deepEqual(calls, [
        ['admit', 'text', 40],
        ['finish', 0],
      ]);
    });

    test('a run aborted midway is billed for what it produced, in its own unit', async () => {
      const { deps, ctx, calls, accountId } = await setup();
      const abort = new AbortController();
      const call = { model: video, endpoint: '/video/generations', unit: 'second' as const, estimate: { seconds: 10 } };
      assert.deepEqual(quote(unitPrices(video), call.estimate), { usd: 500_000, diem: 500_000 }, 'the price quoted before the work');
      await assert.rejects(
        metered(deps, ctx, call, async (meter) => {
          assert.equal(meter.hold.usd, 500_000, 'the hold is the quote');
          let seconds = 0;
          try {
            for (; seconds < 10; seconds++) {
              if (seconds === 4) abort.abort();
              abort.signal.throwIfAborted();
            }
          } finally {
            if (seconds > 0) meter.settle({ seconds });
          }
        }),
        { name: 'AbortError' },
      );
      await ledger.drain();
      const r = await row(ctx.requestId);
      assert.deepEqual([r!.unit, Number(r!.quantity), Number(r!.usd)], ['second', 4, 200_000]);
      assert.equal((await ledger.balances(accountId)).usd, 10_000_000 - 200_000);
      assert.deepEqual(
        calls,
        [
          ['admit', 'video', 0],
          ['finish', 0],
        ],
        'other units admit as 0 tokens',
      );
    });

    test('refused for credit: 402, nothing held, the request counted and its tokens back', async () => {
      const { deps, ctx, calls, accountId } = await setup(0);
      await assert.rejects(openMeter(deps, ctx, { model: text, endpoint: '/chat/completions', estimate: { promptTokens: 10 } }), {
        code: 'INSUFFICIENT_BALANCE',
      });
      assert.equal((await ledger.balances(accountId)).usdHeld, 0);
      assert.deepEqual(calls, [
        ['admit', 'text', 10],
        ['finish', 0],
      ]);
    });

    test('server-priced work (no model) is not rate-limited; a release before settling makes settle a no-op', async () => {
      const { deps, ctx, calls, accountId } = await setup();
      const meter = await openMeter(deps, ctx, {
        modelId: 'augment:scrape',
        endpoint: '/augment/scrape',
        unit: 'call',
        prices: { input: { usd: 0, diem: 0 }, cachedInput: { usd: 0, diem: 0 }, output: { usd: 0, diem: 0 }, call: { usd: 3_000, diem: 3_000 } },
        estimate: { calls: 1 },
      });
      assert.equal(meter.hold.usd, 3_000);
      meter.release();
      assert.deepEqual(meter.settle({ calls: 1 }), { usd: 0, diem: 0 });
      await ledger.drain();
      assert.equal(await row(ctx.requestId), undefined);
      assert.equal((await ledger.balances(accountId)).usd, 10_000_000);
      assert.deepEqual(calls, []);
    });

    test('a unit the model does not price is refused before admission', async () => {
      const { deps, ctx, calls } = await setup();
      await assert.rejects(openMeter(deps, ctx, { model: text, endpoint: '/images/generations', estimate: { images: 1 } }), /no price for images/);
      assert.deepEqual(calls, []);
    });
  });
}
