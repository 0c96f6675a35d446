// MemoryCounter: the embedded mode's fixed windows, with rate-limiter-flexible's figures (refused points stay
// counted until refunded, blockDuration), answered synchronously, and memory bounded under many keys.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, mock, test } from 'node:test';
import { consume, current, makeCounter, refund } from './counters.ts';
import { MemoryCounter } from './memory-counter.ts';

describe('MemoryCounter', () => {
  // Date.now is mocked: windows end exactly when the test says.
  beforeEach(() => mock.timers.enable({ apis: ['Date'], now: 1_000_000 }));
  afterEach(() => mock.timers.reset());

  test('consumes up to points; a refusal keeps its points counted until refunded', () => {
    const c = new MemoryCounter({ points: 3, durationSeconds: 60 });
    assert.equal(c.get('k'), undefined, 'nothing counted yet');
    assert.deepEqual(c.consume('k', 1), { ok: true, res: { consumedPoints: 1, remainingPoints: 2, msBeforeNext: 60_000 } });
    mock.timers.tick(10_000);
    assert.deepEqual(c.consume('k', 2), { ok: true, res: { consumedPoints: 3, remainingPoints: 0, msBeforeNext: 50_000 } });
    assert.deepEqual(c.consume('k', 2), { ok: false, res: { consumedPoints: 5, remainingPoints: 0, msBeforeNext: 50_000 } });
    assert.deepEqual(refund(c, 'k', 2), { consumedPoints: 3, remainingPoints: 0, msBeforeNext: 50_000 });
    assert.deepEqual(refund(c, 'k', 1), { consumedPoints: 2, remainingPoints: 1, msBeforeNext: 50_000 });
    assert.equal(c.consume('k', 1).ok, true);
    assert.equal(c.consume('other', 3).ok, true, 'keys are counted apart');
  });

  test('the window resets when it ends; get reports nothing for an ended window', () => {
    const c = new MemoryCounter({ points: 2, durationSeconds: 1 });
    c.consume('k', 2);
    assert.equal(c.consume('k', 1).ok, false);
    mock.timers.tick(999);
    assert.deepEqual(c.get('k'), { consumedPoints: 3, remainingPoints: 0, msBeforeNext: 1 });
    mock.timers.tick(1);
    assert.equal(c.get('k'), undefined);
    assert.deepEqual(c.consume('k', 2), { ok: true, res: { consumedPoints: 2, remainingPoints: 0, msBeforeNext: 1000 } });
  });

  test('penalty and reward move the count without refusing; remaining never goes below zero', () => {
    const c = new MemoryCounter({ points: 10, durationSeconds: 60 });
    assert.deepEqual(c.penalty('k', 15), { consumedPoints: 15, remainingPoints: 0, msBeforeNext: 60_000 });
    assert.deepEqual(c.reward('k', 7), { consumedPoints: 8, remainingPoints: 2, msBeforeNext: 60_000 });
  });

  test('a refund after the window ended opens a new window at zero, granting no extra capacity', () => {
    const c = new MemoryCounter({ points: 2, durationSeconds: 1 });
    c.consume('k', 2);
    mock.timers.tick(1500);
    // As the library: the reward lands in a new window as -2, reported so, and is corrected to 0 at once.
    assert.deepEqual(refund(c, 'k', 2), { consumedPoints: -2, remainingPoints: 4, msBeforeNext: 1000 });
    assert.deepEqual(c.get('k'), { consumedPoints: 0, remainingPoints: 2, msBeforeNext: 1000 });
    assert.equal(c.consume('k', 2).ok, true);
    assert.equal(c.consume('k', 1).ok, false);
    assert.equal(refund(c, 'k', 0), undefined, 'nothing to give back');
  });

  test('blockSeconds: crossing the limit refuses for the block; later refusals do not extend it', () => {
    const c = new MemoryCounter({ points: 3, durationSeconds: 1, blockSeconds: 5 });
    for (let i = 0; i < 3; i++) assert.equal(c.consume('k', 1).ok, true);
    assert.deepEqual(c.consume('k', 1), { ok: false, res: { consumedPoints: 4, remainingPoints: 0, msBeforeNext: 5000 } });
    mock.timers.tick(2000);
    assert.deepEqual(c.consume('k', 1), { ok: false, res: { consumedPoints: 5, remainingPoints: 0, msBeforeNext: 3000 } });
    assert.deepEqual(c.get('k'), { consumedPoints: 5, remainingPoints: 0, msBeforeNext: 3000 }, 'still blocked past the 1 s window');
    mock.timers.tick(3000);
    assert.equal(c.get('k'), undefined, 'the block is over');
    assert.equal(c.consume('k', 1).ok, true);
  });

  test('without blockSeconds a refusal leaves the window as it was', () => {
    const c = new MemoryCounter({ points: 1, durationSeconds: 10 });
    c.consume('k', 1);
    mock.timers.tick(4000);
    assert.deepEqual(c.consume('k', 1).res, { consumedPoints: 2, remainingPoints: 0, msBeforeNext: 6000 });
  });

  test('delete forgets a key', () => {
    const c = new MemoryCounter({ points: 1, durationSeconds: 10 });
    c.consume('k', 1);
    assert.equal(c.delete('k'), true);
    assert.equal(c.delete('k'), false);
    assert.equal(c.consume('k', 1).ok, true);
  });

  test('memory stays bounded: ended windows are swept as new keys arrive', () => {
    const c = new MemoryCounter({ points: 5, durationSeconds: 1 });
    const perWindow = 5000;
    for (let round = 0; round < 20; round++) {
      for (let i = 0; i < perWindow; i++) c.consume(`r${round}:${i}`, 1);
      assert.ok(c.size <= 2 * perWindow, `round ${round}: ${c.size} keys held`);
      mock.timers.tick(1001);
    }
    // Live keys are never swept, however many.
    const live = new MemoryCounter({ points: 5, durationSeconds: 60 });
    for (let i = 0; i < 3 * perWindow; i++) live.consume(`k${i}`, 1);
    assert.equal(live.size, 3 * perWindow);
    assert.equal(live.get('k0')?.consumedPoints, 1);
  });

  test('a window must have a length', () => {
    assert.throws(() => new MemoryCounter({ points: 1, durationSeconds: 0 }), /durationSeconds/);
  });
});

test('without Redis, makeCounter counts in memory and the helpers answer without a promise', () => {
  const c = makeCounter({ keyPrefix: 'test', points: 1, durationSeconds: 60 });
  assert.ok(c instanceof MemoryCounter);
  const o = consume(c, 'k', 1);
  assert.ok(!(o instanceof Promise));
  assert.equal(o.ok, true);
  assert.equal((current(c, 'k') as { consumedPoints: number }).consumedPoints, 1);
});
