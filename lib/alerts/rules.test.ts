// The crossing rules: a level fires when it rises above the last alerted one in the same period, once; it re-arms
// when it falls or the period resets; budgets step at 50, 80 and 100 %.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { balanceReading, budgetLevel, budgetReading, step } from './rules.ts';
import { backoffMs } from './service.ts';

test('a low balance fires once per crossing and re-arms above the threshold', () => {
  const t = 500_000;
  const above = balanceReading('USD', 600_000, t);
  const below = balanceReading('USD', 400_000, t);
  assert.equal(above.level, 0);
  assert.equal(below.level, 1);
  assert.equal(balanceReading('USD', t, t).level, 0, 'at the threshold is not below it');
  let s = step(undefined, above).next; // first look: stored, nothing fired
  assert.deepEqual(step(undefined, above).fire, false);
  const crossed = step(s, below);
  assert.equal(crossed.fire, true);
  s = crossed.next;
  // Every request after it: nothing.
  assert.deepEqual(step(s, balanceReading('USD', 300_000, t)), { fire: false, next: undefined });
  // Topped up: re-armed, without an alert; the next crossing fires again.
  const rearmed = step(s, above);
  assert.equal(rearmed.fire, false);
  assert.equal(rearmed.next?.level, 0);
  assert.equal(step(rearmed.next, below).fire, true);
});

test('budgets step at 50, 80 and 100 %; one alert per step; a new period re-arms', () => {
  assert.deepEqual(
    [0, 499, 500, 799, 800, 999, 1000, 1500].map((s) => budgetLevel(s, 1000)),
    [0, 0, 50, 50, 80, 80, 100, 100],
  );
  assert.equal(budgetLevel(10, 0), 0);
  const key = { id: 'k1', name: 'ci', limitPeriod: 'MONTH' };
  const r = (spent: number, period = '2030-01') => budgetReading(key, 'USD', spent, 1_000_000, period);
  let s = step(undefined, r(0)).next;
  const fifty = step(s, r(550_000));
  assert.equal(fifty.fire, true);
  assert.equal(fifty.next?.level, 50);
  s = fifty.next;
  assert.equal(step(s, r(600_000)).fire, false);
  const eighty = step(s, r(850_000));
  assert.equal(eighty.fire, true);
  const e = r(850_000).event;
  assert.ok(e.type === 'budget.crossed' && e.data.nearingCap && e.data.percent === 80);
  s = eighty.next;
  // A jump past two steps at once fires once, for the highest.
  const jump = step(step(undefined, r(0)).next, r(1_000_000));
  assert.equal(jump.fire, true);
  assert.equal(jump.next?.level, 100);
  // A new month: the spend starts again; the level of the old period no longer counts.
  const reset = step(s, r(0, '2030-02'));
  assert.equal(reset.fire, false);
  assert.deepEqual(reset.next, { level: 0, period: '2030-02' });
  assert.equal(step(s, r(500_000, '2030-02')).fire, true, '50 % of the new period fires again');
});

test('backoff doubles from the base, is capped, and is jittered between half and all of it', () => {
  assert.deepEqual(
    [1, 2, 3, 4].map((a) => backoffMs(a, 1000, () => 1)),
    [1000, 2000, 4000, 8000],
  );
  assert.deepEqual(
    [1, 2, 3].map((a) => backoffMs(a, 1000, () => 0)),
    [500, 1000, 2000],
  );
  assert.equal(
    backoffMs(40, 1000, () => 1),
    6 * 3600_000,
  );
  for (let i = 0; i < 100; i++) {
    const d = backoffMs(3, 1000);
    assert.ok(d >= 2000 && d <= 4000, String(d));
  }
});
