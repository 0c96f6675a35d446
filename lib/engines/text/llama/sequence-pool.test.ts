import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PoolClosedError, QueueFullError, QueueTimeoutError, SlotPool } from './sequence-pool.ts';

const live = () => new AbortController().signal;

test('free slots are handed out, the best-ranked first', async () => {
  const pool = new SlotPool(['a', 'b', 'c'], 0);
  assert.equal(await pool.acquire(live(), (s) => (s === 'b' ? 5 : 1)), 'b');
  assert.equal(await pool.acquire(live()), 'a');
  assert.equal(pool.available, 1);
});

test('waiters are served in FIFO order and a full queue refuses at once', async () => {
  const pool = new SlotPool(['x'], 2);
  const slot = await pool.acquire(live());
  const order: string[] = [];
  const first = pool.acquire(live()).then((s) => order.push(`first:${s}`));
  const second = pool.acquire(live()).then((s) => order.push(`second:${s}`));
  assert.equal(pool.waiting, 2);
  await assert.rejects(pool.acquire(live()), QueueFullError);
  pool.release(slot);
  await first;
  pool.release('x');
  await second;
  assert.deepEqual(order, ['first:x', 'second:x']);
});

test('an aborted waiter leaves the queue with the abort reason', async () => {
  const pool = new SlotPool(['x'], 1);
  await pool.acquire(live());
  const ac = new AbortController();
  const waiting = pool.acquire(ac.signal);
  ac.abort(new Error('gone'));
  await assert.rejects(waiting, /gone/);
  assert.equal(pool.waiting, 0);
  const next = pool.acquire(live());
  pool.release('x');
  assert.equal(await next, 'x');
});

test('an aborted signal is refused before taking a slot', async () => {
  const pool = new SlotPool(['x'], 1);
  await assert.rejects(pool.acquire(AbortSignal.abort(new Error('late'))), /late/);
  assert.equal(pool.available, 1);
});

test('closing rejects waiters and later requests', async () => {
  const pool = new SlotPool(['x'], 1);
  await pool.acquire(live());
  const waiting = pool.acquire(live());
  pool.close(new PoolClosedError('closed'));
  await assert.rejects(waiting, PoolClosedError);
  await assert.rejects(pool.acquire(live()), PoolClosedError);
});

test('a waiter not served within the wait bound is refused and leaves the queue; the slot goes to the next', async () => {
  const pool = new SlotPool(['x'], 2, 50);
  await pool.acquire(live());
  const started = Date.now();
  const late = pool.acquire(live());
  await assert.rejects(late, QueueTimeoutError);
  assert.ok(Date.now() - started < 1000);
  assert.equal(pool.waiting, 0);
  const next = pool.acquire(live());
  pool.release('x');
  assert.equal(await next, 'x');
});
