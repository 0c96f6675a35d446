import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AsyncQueue } from './async-queue.ts';

test('items pushed before and while reading arrive in order, then the queue ends', async () => {
  const q = new AsyncQueue<number>();
  q.push(1);
  setTimeout(() => {
    q.push(2);
    q.push(3);
    q.end();
    q.push(4); // after end: dropped
  }, 5);
  const seen: number[] = [];
  for await (const n of q) seen.push(n);
  assert.deepEqual(seen, [1, 2, 3]);
});

test('a failure is thrown after the queued items', async () => {
  const q = new AsyncQueue<string>();
  q.push('a');
  q.fail(new Error('boom'));
  const seen: string[] = [];
  await assert.rejects(async () => {
    for await (const s of q) seen.push(s);
  }, /boom/);
  assert.deepEqual(seen, ['a']);
});
