// The usage dashboard's report for JSON-RPC proxy calls made with one of the user's API keys (against anvil): the
// network is a row of the per-model table in RPC credits with its methods, recent requests say their credits and
// methods, and token requests keep their shape.
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { after, before, test } from 'node:test';
import { spawnAnvil } from '../../e2e/support/chains/anvil.ts';
import { type Harness, post, startHarness } from '../../e2e/support/harness.ts';
import { accountKeys } from '../auth/keys.ts';
import { loadConfig } from '../config.ts';
import { testUser } from '../../e2e/support/app-chat.ts';
import type { UsageReport } from '../wire.ts';
import { caller } from '../../e2e/support/app-requests.ts';
import { usageRoutes } from './app-usage.ts';

let anvil: { proc: ChildProcess; rpcUrl: string };
let h: Harness;
before(async () => {
  anvil = await spawnAnvil();
  h = await startHarness({ env: { LAGOON_RPC_UPSTREAMS: `base-mainnet=${anvil.rpcUrl}`, LAGOON_RPC_HEALTH_INTERVAL_MS: '600000' } });
});
after(async () => {
  await h?.close();
  if (anvil && anvil.proc.exitCode === null) {
    const exited = new Promise((r) => anvil.proc.once('exit', r));
    anvil.proc.kill('SIGTERM');
    await exited;
  }
});

test('JSON-RPC calls show in RPC credits with their network and methods, in the per-model table and recent requests', async () => {
  const alice = await testUser(h.svc.store);
  const { secret } = await accountKeys(h.svc.store, alice.user.accountId).create({ type: 'INFERENCE', description: 'wallet bot' });
  const call = (method: string, id: number) => ({ jsonrpc: '2.0', id, method, params: [] });
  assert.equal(
    (await post(h, '/crypto/rpc/base-mainnet', secret, [call('eth_blockNumber', 1), call('eth_blockNumber', 2), call('eth_gasPrice', 3)])).status,
    200,
  );
  assert.equal((await post(h, '/crypto/rpc/base-mainnet', secret, call('txpool_status', 4))).status, 200);

  const app = usageRoutes({ svc: h.svc, app: loadConfig({}).app });
  const r = await caller(h.svc.store, () => [])(app.usage, '/usage?days=7', { browser: { ip: '192.0.2.10', cookie: alice.cookie, csrf: alice.csrf } });
  assert.equal(r.status, 200, r.text);
  const report = r.json as UsageReport;
  assert.equal(report.totals.requests, 2);
  assert.deepEqual(
    report.byModel.map((m) => [m.modelId, m.unit, m.quantity, m.requests]),
    [['rpc:base-mainnet', 'rpc_credit', 100, 2]],
  );
  assert.deepEqual(report.byModel[0].rpc, {
    network: 'base-mainnet',
    methods: [
      { method: 'eth_blockNumber', calls: 2, credits: 40, errors: 0 },
      { method: 'txpool_status', calls: 1, credits: 40, errors: 0 },
      { method: 'eth_gasPrice', calls: 1, credits: 20, errors: 0 },
    ],
  });
  assert.deepEqual(
    report.recent.map((q) => [q.modelId, q.unit, q.quantity, q.via, q.rpc?.methods.map((m) => m.method)]),
    [
      ['rpc:base-mainnet', 'rpc_credit', 40, 'wallet bot', ['txpool_status']],
      ['rpc:base-mainnet', 'rpc_credit', 60, 'wallet bot', ['eth_blockNumber', 'eth_gasPrice']],
    ],
  );
});
