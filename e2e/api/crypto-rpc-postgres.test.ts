// Two server instances on one PostgreSQL database and one Redis, in front of one anvil: a signed transaction sent to
// both with the same Idempotency-Key reaches the node once and is charged once (the claim is a row both see), the
// per-caller request cap is one budget across instances, and the usage rows say what each call was.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import { after, before, test } from 'node:test';
import type { Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { getBalances } from '../../lib/billing/ledger.ts';
import { closeRedis, connectRedis, type Redis } from '../../lib/limits/redis.ts';
import { signDeadTransfer, spawnAnvil, stopSpawnedAnvil } from '../support/chains/anvil.ts';
import { type RpcRelay, startRelay } from '../support/chains/rpc-relay.ts';
import { get, type Harness, post, startHarness } from '../support/harness.ts';
import { createTestDatabase } from '../support/pg.ts';

// anvil's development account 5.
const SENDER_KEY: Hex = '0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba';
const prefix = `lagoon-test-${randomUUID()}`;

let anvil: { proc: ChildProcess; rpcUrl: string };
let relay: RpcRelay;
let db: { url: string; drop(): Promise<void> };
let redis: Redis;
let one: Harness;
let two: Harness;

before(async () => {
  anvil = await spawnAnvil();
  relay = await startRelay(anvil.rpcUrl);
  db = await createTestDatabase();
  redis = await connectRedis('redis://127.0.0.1:6379');
  const env = {
    LAGOON_RPC_UPSTREAMS: `base-mainnet=${relay.url}`,
    LAGOON_RPC_REQUESTS_PER_MINUTE: '4',
    LAGOON_RPC_HEALTH_INTERVAL_MS: '600000',
    REDIS_URL: 'redis://127.0.0.1:6379',
    LAGOON_REDIS_PREFIX: prefix,
  };
  // One after the other: the first applies the migrations.
  one = await startHarness({ databaseUrl: db.url, env });
  two = await startHarness({ databaseUrl: db.url, env });
});
after(async () => {
  await one?.close();
  await two?.close();
  if (redis) {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    await closeRedis(redis);
  }
  await db?.drop();
  await relay?.close();
  await stopSpawnedAnvil(anvil);
});

const call = (method: string, params: unknown[] = [], id: number | string = 1) => ({ jsonrpc: '2.0', id, method, params });

test('the same Idempotency-Key on two instances: the transaction reaches the node once and is charged once', async () => {
  const { accountId, key } = await one.newAccount({ usd: 1, keyType: 'ADMIN' });
  const sender = privateKeyToAccount(SENDER_KEY);
  const nonceRes = await fetch(anvil.rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(call('eth_getTransactionCount', [sender.address, 'latest'])),
  });
  const nonce = Number(BigInt(((await nonceRes.json()) as { result: string }).result));
  const raw = await signDeadTransfer(sender, nonce);
  const headers = { 'Idempotency-Key': `pg-${randomUUID()}` };
  const held = relay.hold('eth_sendRawTransaction');
  const first = post(one, '/crypto/rpc/base-mainnet', key, call('eth_sendRawTransaction', [raw], 1), headers);
  await held.arrived;
  // The duplicate goes to the other instance while the first is at the node (its viem-style id differs).
  const second = post(two, '/crypto/rpc/base-mainnet', key, call('eth_sendRawTransaction', [raw], 2), headers);
  // Once its admission shows in the shared request budget it is past the point of forwarding on its own.
  const keyId = (await one.svc.store.get<{ id: string }>('SELECT id FROM api_keys WHERE account_id = $1', [accountId]))!.id;
  for (let i = 0; i < 200 && Number(await redis.get(`${prefix}:rl:rpc-rpm:${keyId}`)) < 2; i++) await new Promise((r) => setTimeout(r, 10));
  held.release();
  const [a, b] = await Promise.all([first, second]);
  assert.equal(a.status, 200, a.text);
  assert.equal(b.status, 200, b.text);
  assert.equal(a.headers.get('idempotent-replayed'), null);
  assert.equal(b.headers.get('idempotent-replayed'), 'true');
  assert.deepEqual([a.json.id, b.json.id, b.json.result], [1, 2, a.json.result]);
  assert.equal(relay.count('eth_sendRawTransaction'), 1, 'the node saw it once');
  assert.equal((await getBalances(one.svc.store, accountId)).usd, 1_000_000 - 14, 'charged once');

  const history = await get(two, '/billing/usage-history', key);
  assert.equal(history.json.data.length, 1);
  assert.deepEqual(history.json.data[0].rpc, { network: 'base-mainnet', methods: [{ method: 'eth_sendRawTransaction', calls: 1, credits: 20, errors: 0 }] });
  const analytics = await get(one, '/billing/usage-analytics', key);
  assert.deepEqual(analytics.json.data.byModel[0].rpc.methods, [{ method: 'eth_sendRawTransaction', calls: 1, credits: 20, errors: 0 }]);
});

test('the per-caller request cap is one budget across instances (Redis)', async () => {
  const { key } = await one.newAccount({ usd: 1 });
  const statuses: number[] = [];
  for (const h of [one, two, one, two, two]) statuses.push((await post(h, '/crypto/rpc/base-mainnet', key, call('eth_blockNumber'))).status);
  assert.deepEqual(statuses, [200, 200, 200, 200, 429]);
});
