// Top-level JSON-RPC ids found and replaced in raw text: nested "id" members, strings full of brackets and quotes,
// escaped keys and numbers beyond 2^53 are left exactly as they were.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { answerWithIds, callIds, idSpans, withoutIds } from './ids.ts';

describe('JSON-RPC ids in raw text', () => {
  test('only the top-level ids of a call or of each call of a batch', () => {
    const single = '{"jsonrpc":"2.0","method":"eth_call","params":[{"id":"inner","data":"}]\\"{["}],"id":42}';
    assert.deepEqual(
      idSpans(single).map((s) => single.slice(s.start, s.end)),
      ['42'],
    );
    assert.equal(withoutIds(single), single.replace(',"id":42}', ',"id":null}'));
    const batch = ' [ {"id" : "a" , "method":"x"} , 7, {"method":"notify"}, {"\\u0069d":18446744073709551617,"params":{"id":1}} ] ';
    assert.deepEqual(callIds(batch, 4), ['"a"', null, null, '18446744073709551617']);
    assert.equal(withoutIds(batch), ' [ {"id" : null , "method":"x"} , 7, {"method":"notify"}, {"\\u0069d":null,"params":{"id":1}} ] ');
  });

  test('a replay answers with the retry ids, matched by the original ones; the rest of the answer is untouched', () => {
    const stored = '[{"jsonrpc":"2.0","id":2,"result":18446744073709551617},{"jsonrpc":"2.0","id":1,"result":"0x1"},{"jsonrpc":"2.0","id":null,"error":{}}]';
    const replay = answerWithIds(stored, ['1', '2'], ['"retry-1"', '"retry-2"']);
    assert.equal(
      replay,
      '[{"jsonrpc":"2.0","id":"retry-2","result":18446744073709551617},{"jsonrpc":"2.0","id":"retry-1","result":"0x1"},{"jsonrpc":"2.0","id":null,"error":{}}]',
    );
    assert.equal(answerWithIds('{"jsonrpc":"2.0","result":"0xabc","id":7}', ['7.0'], ['8']), '{"jsonrpc":"2.0","result":"0xabc","id":8}');
    assert.equal(answerWithIds('', [null], [null]), '');
    // Duplicate ids are matched in order.
    assert.equal(answerWithIds('[{"id":1},{"id":1}]', ['1', '1'], ['5', '6']), '[{"id":5},{"id":6}]');
  });
});
