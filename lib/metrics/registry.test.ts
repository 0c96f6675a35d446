// The counters move only once a server of this process serves /metrics: with metrics off nobody can read them.
// (Each test file runs in its own process, so nothing else has turned them on here.)
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { countMetrics, holdClosed, holdOpened, recordRefusal, recordUsage, registry } from './registry.ts';

const value = async (name: string, labels: Record<string, string> = {}) => {
  const m = await registry.getSingleMetric(name)?.get();
  return m?.values.find((v) => Object.entries(labels).every(([k, x]) => v.labels[k] === x))?.value ?? 0;
};

test('with metrics off nothing is counted; once a server turns them on, every call is', async () => {
  const usage = () => recordUsage('m1', { prompt: 3, completion: 5, cached: 0 }, { usd: 2_000_000, diem: 0 });
  holdOpened();
  recordRefusal('RPM');
  usage();
  assert.equal(await value('lagoon_ledger_holds_open'), 0);
  assert.equal(await value('lagoon_rate_limit_refusals_total', { type: 'RPM' }), 0);
  assert.equal(await value('lagoon_tokens_total', { model: 'm1', kind: 'completion' }), 0);

  countMetrics();
  holdOpened();
  holdOpened();
  holdClosed();
  recordRefusal('RPM');
  usage();
  assert.equal(await value('lagoon_ledger_holds_open'), 1);
  assert.equal(await value('lagoon_rate_limit_refusals_total', { type: 'RPM' }), 1);
  assert.equal(await value('lagoon_tokens_total', { model: 'm1', kind: 'completion' }), 5);
  assert.equal(await value('lagoon_cost_usd_total', { model: 'm1' }), 2);
});
