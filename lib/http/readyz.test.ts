import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mayReadDetails } from './readyz.ts';

test("mayReadDetails: loopback clients and the metrics token's holders read the checks; anyone else the status only", () => {
  for (const a of ['127.0.0.1', '::1', '::ffff:127.0.0.1']) assert.equal(mayReadDetails(a, undefined, undefined), true, a);
  assert.equal(mayReadDetails('203.0.113.7', undefined, undefined), false);
  assert.equal(mayReadDetails('203.0.113.7', 'Bearer s3cret-token', undefined), false);
  assert.equal(mayReadDetails('203.0.113.7', 'Bearer s3cret-token', 's3cret-token'), true);
  assert.equal(mayReadDetails('203.0.113.7', 'Bearer wrong', 's3cret-token'), false);
  assert.equal(mayReadDetails('203.0.113.7', 'Bearer ', ''), false);
  assert.equal(mayReadDetails(undefined, undefined, undefined), false);
});
