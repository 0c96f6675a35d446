import assert from 'node:assert/strict';
import { test } from 'node:test';
import { duplicateKey } from './duplicate-keys.ts';

test('duplicateKey: a repeated member name, at any depth and however spelled; strings and arrays are no names', () => {
  assert.equal(duplicateKey('{"jsonrpc":"2.0","method":"eth_call","method":"admin_addPeer","id":1}'), 'method');
  assert.equal(duplicateKey('{"method":"eth_call","\\u006dethod":"admin_addPeer"}'), 'method');
  assert.equal(duplicateKey('[{"id":1,"method":"a"},{"id":2, "id" :3}]'), 'id');
  assert.equal(duplicateKey('{"params":[{"to":"0x1","to":"0x2"}]}'), 'to');
  assert.equal(duplicateKey('{"method":"eth_call","params":["method","method"],"id":"method"}'), undefined);
  assert.equal(duplicateKey('[{"id":1},{"id":1}]'), undefined);
  assert.equal(duplicateKey('{"a":{"b":1},"b":{"a":1}}'), undefined);
  assert.equal(duplicateKey('{"s":"quote \\" inside","t":"x"}'), undefined);
  assert.equal(duplicateKey('123456789012345678901234567890'), undefined);
});
