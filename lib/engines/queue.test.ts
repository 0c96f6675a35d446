import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AdmissionQueue } from './queue.ts';
import { EngineError } from './text/types.ts';

const live = () => new AbortController().signal;
const isKind = (kind: string) => (e: unknown) => e instanceof EngineError && e.kind === kind;

test('runs `concurrency` at once, queues `maxQueue`, refuses the rest at once as capacity', async () => {
  const q = new AdmissionQueue(2, 2, 10_000);
  const running = [await q.acquire(live()), await q.acquire(live())];
  const queued = [q.acquire(live()), q.acquire(live())];
  assert.equal(q.depth, 2);
  await assert.rejects(q.acquire(live()), isKind('capacity'));
  running[0]();
  running[0](); // a second release is a no-op
  const third = await queued[0];
  assert.equal(q.depth, 1);
  assert.equal(q.active, 2);
  running[1]();
  third();
  (await queued[1])();
  assert.equal(q.active, 0);
});

test('a waiter not started within maxWaitMs is refused as capacity and leaves the queue', async () => {
  const q = new AdmissionQueue(1, 4, 50);
  const release = await q.acquire(live());
  const started = Date.now();
  await assert.rejects(q.acquire(live()), isKind('capacity'));
  assert.ok(Date.now() - started < 1000);
  assert.equal(q.depth, 0);
  release();
  assert.equal(q.active, 0);
});

test('a waiter whose client goes away leaves the queue at once; an aborted signal is never admitted', async () => {
  const q = new AdmissionQueue(1, 1, 10_000);
  const release = await q.acquire(live());
  const ac = new AbortController();
  const waiting = q.acquire(ac.signal);
  ac.abort();
  await assert.rejects(waiting, isKind('failed'));
  assert.equal(q.depth, 0);
  await assert.rejects(q.acquire(AbortSignal.abort()), isKind('failed'));
  const next = q.acquire(live());
  release();
  (await next)();
  assert.equal(q.active, 0);
});
