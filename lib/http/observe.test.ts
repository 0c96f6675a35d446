// The request log's duration is read back from the request id: the id must keep starting with the arrival clock.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { arrivedAt } from './observe.ts';
import { newRequestId } from './request-id.ts';

test('a request id starts with the ms clock at which it was made', () => {
  const before = Date.now();
  const id = newRequestId();
  const after = Date.now();
  const at = arrivedAt(id);
  assert.ok(at >= before && at <= after, `${id} decodes to ${at}, not within [${before}, ${after}]`);
});
