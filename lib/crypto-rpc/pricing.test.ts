// Credits per call from the node's answers (errors at the flat rate, notifications, answers without ids), the worst
// case of a batch, and credits in money.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { costOfUse, quote } from '../billing/pricing.ts';
import { byMethod, creditPrices, creditsCostUsd, outcomes, worstCase } from './pricing.ts';
import { parseRpcRequest } from './request.ts';

const call = (id: unknown, method = 'eth_call') => ({ jsonrpc: '2.0', id, method, params: [] });
const ok = (id: unknown) => ({ jsonrpc: '2.0', id, result: '0x1' });
const err = (id: unknown) => ({ jsonrpc: '2.0', id, error: { code: -32000, message: 'execution reverted' } });

describe('credits', () => {
  test('money: 20 credits at 7e-7 USD are 14 micro-USD, held and billed alike; the header shows 8 decimals', () => {
    const prices = creditPrices(0.0000007);
    assert.deepEqual(quote(prices, { rpcCredits: 20 }), { usd: 14, diem: 14 });
    assert.deepEqual(costOfUse(prices, { rpcCredits: 20 }), { usd: 14, diem: 14 });
    assert.deepEqual(quote(prices, { rpcCredits: 1 }), { usd: 1, diem: 1 }, 'a hold rounds up');
    assert.equal(creditsCostUsd(20, 0.0000007), '0.00001400');
    assert.equal(creditsCostUsd(145, 0.0000007), '0.00010150');
  });

  test('the worst case takes each call at its credits or the error credits, whichever is more', () => {
    assert.equal(worstCase([20, 40, 80], 5), 140);
    assert.equal(worstCase([1, 2], 5), 10);
  });

  test('answers are matched by id: results cost their credits, errors the flat credits, in any order', () => {
    const req = parseRpcRequest([call(1), call('two', 'txpool_content'), call(3, 'eth_getBalance')]);
    const outs = outcomes(req.items, [20, 80, 20], [err(3), ok(1), ok('two')], 5);
    assert.deepEqual(
      outs.map((o) => [o.method, o.credits, o.error]),
      [
        ['eth_call', 20, false],
        ['txpool_content', 80, false],
        ['eth_getBalance', 5, true],
      ],
    );
  });

  test('a single call, its error, and a node that refused a whole batch with one error', () => {
    const one = parseRpcRequest(call(7));
    assert.deepEqual(outcomes(one.items, [20], ok(7), 5)[0].credits, 20);
    assert.deepEqual(outcomes(one.items, [20], err(7), 5)[0].credits, 5);
    const batch = parseRpcRequest([call(1), call(2)]);
    assert.deepEqual(
      outcomes(batch.items, [20, 20], err(null), 5).map((o) => o.credits),
      [5, 5],
      'the one error is matched to the first call; the call left unanswered costs the error credits too',
    );
  });

  test('notifications (no id) cost their credits: the node ran them, and answers nothing', () => {
    const req = parseRpcRequest([{ jsonrpc: '2.0', method: 'eth_call', params: [] }, call(2)]);
    assert.deepEqual(
      outcomes(req.items, [20, 20], [ok(2)], 5).map((o) => o.credits),
      [20, 20],
    );
    assert.deepEqual(
      outcomes(req.items, [20, 20], undefined, 5).map((o) => o.credits),
      [20, 5],
    );
  });

  test('a null id is an id: its answer matches it', () => {
    const req = parseRpcRequest([call(null), call(1)]);
    assert.deepEqual(
      outcomes(req.items, [20, 20], [ok(null), err(1)], 5).map((o) => o.credits),
      [20, 5],
    );
  });

  test('per method: calls, credits and errors', () => {
    const req = parseRpcRequest([call(1), call(2), call(3, 'eth_getBalance')]);
    assert.deepEqual(byMethod(outcomes(req.items, [20, 20, 20], [ok(1), err(2), ok(3)], 5)), [
      { method: 'eth_call', calls: 2, credits: 25, errors: 1 },
      { method: 'eth_getBalance', calls: 1, credits: 20, errors: 0 },
    ]);
  });
});

describe('request bodies', () => {
  test('one call or a batch of 1 to 100; anything else is a 400 that says why', () => {
    assert.deepEqual(parseRpcRequest(call(1)), { batch: false, items: [{ method: 'eth_call', id: 1 }] });
    assert.equal(parseRpcRequest(Array.from({ length: 100 }, (_, i) => call(i))).items.length, 100);
    const refused = (body: unknown, re: RegExp) =>
      assert.throws(
        () => parseRpcRequest(body),
        (e: any) => e.status === 400 && re.test(e.message),
      );
    refused([], /empty/);
    refused(
      Array.from({ length: 101 }, (_, i) => call(i)),
      /101 calls; at most 100/,
    );
    refused(null, /must be an object/);
    refused('eth_call', /must be an object/);
    refused({ id: 1, method: 'eth_call' }, /jsonrpc must be "2.0"/);
    refused({ jsonrpc: '1.0', id: 1, method: 'eth_call' }, /jsonrpc/);
    refused({ jsonrpc: '2.0', id: 1 }, /method must be a string/);
    refused({ jsonrpc: '2.0', id: 1, method: 'eth call' }, /method name/);
    refused({ jsonrpc: '2.0', id: 1, method: 'eth_call', params: 'x' }, /params/);
    refused({ jsonrpc: '2.0', id: {}, method: 'eth_call' }, /id must be/);
    refused({ jsonrpc: '2.0', id: 1, method: 'eth_call', extra: 1 }, /unknown member "extra"/);
    refused([call(1), { jsonrpc: '2.0', method: 5 }], /batch item 1: method/);
  });
});
