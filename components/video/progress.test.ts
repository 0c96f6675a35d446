import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isActive, jobProgress, remaining } from './progress.ts';

test('running: execution_duration over average_execution_time, advanced since the fetch, short of full until done', () => {
  const job = { status: 'running' as const, executionDuration: 2_000, averageExecutionTime: 8_000 };
  assert.deepEqual(jobProgress(job, 0), { fraction: 0.25, remainingMs: 6_000, overdue: false });
  assert.deepEqual(jobProgress(job, 2_000), { fraction: 0.5, remainingMs: 4_000, overdue: false });
  assert.deepEqual(jobProgress(job, 20_000), { fraction: 0.99, remainingMs: 0, overdue: true });
  assert.equal(jobProgress(job, -5_000).fraction, 0.25, 'a clock that went back does not move the bar back');
  assert.equal(jobProgress({ ...job, averageExecutionTime: 0 }, 0).fraction, 0.99, 'no estimate: no division by zero');
});

test('queued is at the start, finished or failed at the end', () => {
  assert.deepEqual(jobProgress({ status: 'queued', executionDuration: 0, averageExecutionTime: 5_000 }, 3_000), {
    fraction: 0,
    remainingMs: null,
    overdue: false,
  });
  assert.equal(jobProgress({ status: 'succeeded', executionDuration: 0, averageExecutionTime: 5_000 }, 0).fraction, 1);
  assert.equal(jobProgress({ status: 'failed', executionDuration: 0, averageExecutionTime: 5_000 }, 0).fraction, 1);
  assert.deepEqual(
    ['queued', 'running', 'succeeded', 'failed'].map((status) => isActive({ status } as never)),
    [true, true, false, false],
  );
});

test('time left in seconds, then minutes', () => {
  assert.deepEqual(remaining(0), { amount: 1, unit: 's' });
  assert.deepEqual(remaining(12_300), { amount: 13, unit: 's' });
  assert.deepEqual(remaining(180_000), { amount: 3, unit: 'min' });
});
