// The worker's key on a mocked clock: it rotates once rotateMs have passed (the old secret wiped), never with 0, and
// a replayed set of envelopes is refused per key while the bounded memory drops the oldest first.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WorkerKeys } from './keys.ts';

test('the key rotates after rotateMs, and the old secret is wiped', () => {
  let now = 1_000;
  const keys = new WorkerKeys({ rotateMs: 60_000, now: () => now });
  const first = keys.current();
  now += 59_999;
  assert.equal(keys.current(), first);
  now += 1;
  const second = keys.current();
  assert.notEqual(second.publicHex, first.publicHex);
  assert.ok(first.secretKey.every((b) => b === 0));
  assert.match(second.address, /^0x[0-9a-fA-F]{40}$/);
});

test('rotateMs 0 keeps one key until the worker restarts', () => {
  let now = 0;
  const keys = new WorkerKeys({ rotateMs: 0, now: () => now });
  const k = keys.current();
  now += 10 * 365 * 86_400_000;
  assert.equal(keys.current(), k);
});

test('a replayed set of envelopes is refused; a new key forgets; the memory is bounded', () => {
  const keys = new WorkerKeys({ rotateMs: 0, maxSeen: 2 });
  const k = keys.current();
  assert.equal(keys.admit(k, ['a', 'b']), true);
  assert.equal(keys.admit(k, ['a', 'b']), false);
  // The same history with a new question is a new request.
  assert.equal(keys.admit(k, ['a', 'b', 'c']), true);
  assert.equal(keys.admit(k, ['d']), true);
  // Past maxSeen the oldest set is forgotten.
  assert.equal(keys.admit(k, ['a', 'b']), true);
  keys.rotate();
  assert.equal(keys.admit(keys.current(), ['d']), true);
});
