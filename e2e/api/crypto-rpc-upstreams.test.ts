// The proxy's upstream pools against real anvil nodes: a killed node is failed over, a node that breaks mid-call never gets a transaction resent elsewhere, a failed node
// is taken out (503 once none is left) and back in once its health check passes, and a node that hangs is a 504.
// Nothing is charged for a call no node answered.
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { after, before, test } from 'node:test';
import type { Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { getBalances } from '../../lib/billing/ledger.ts';
import { signDeadTransfer, spawnAnvil } from '../support/chains/anvil.ts';
import { type RpcRelay, startRelay } from '../support/chains/rpc-relay.ts';
import { type Harness, post, startHarness } from '../support/harness.ts';

// anvil's development account 4.
const SENDER_KEY: Hex = '0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a';
const WATCHED = '0x00000000000000000000000000000000000b0b00';

type Node = { proc: ChildProcess; rpcUrl: string };
let nodes: Node[] = [];
let relays: RpcRelay[] = [];
let h: Harness;
let key: string;
let accountId: string;

const direct = async (node: Node, method: string, params: unknown[]) => {
  const r = await fetch(node.rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return ((await r.json()) as { result: any }).result;
};
const stop = async (node: Node, signal: NodeJS.Signals) => {
  if (node.proc.exitCode !== null || node.proc.signalCode !== null) return;
  const exited = new Promise((r) => node.proc.once('exit', r));
  node.proc.kill(signal);
  await exited;
};

before(async () => {
  nodes = await Promise.all([spawnAnvil(), spawnAnvil(), spawnAnvil()]);
  // Each node holds a different balance for one address, so an answer tells which node gave it.
  await Promise.all(nodes.map((n, i) => direct(n, 'anvil_setBalance', [WATCHED, `0x${(1000 + i).toString(16)}`])));
  relays = await Promise.all([startRelay(nodes[0].rpcUrl), startRelay(nodes[1].rpcUrl), startRelay(nodes[1].rpcUrl)]);
  h = await startHarness({
    env: {
      LAGOON_RPC_UPSTREAMS: [
        // Two nodes behind relays that can fail, reset or hang on demand.
        `base-mainnet=${relays[0].url},${relays[1].url}`,
        // A node that gets killed, then a healthy one.
        `ethereum-mainnet=${nodes[2].rpcUrl},${nodes[1].rpcUrl}`,
        // One node alone: taken out, then back in.
        `optimism-mainnet=${relays[2].url}`,
      ].join(';'),
      LAGOON_RPC_TIMEOUT_MS: '5000',
      LAGOON_RPC_HEALTH_INTERVAL_MS: '2000',
    },
  });
  ({ key, accountId } = await h.newAccount({ usd: 1 }));
});
after(async () => {
  await h?.close();
  await Promise.all(relays.map((r) => r.close()));
  await Promise.all(nodes.map((n) => stop(n, 'SIGTERM')));
});

const rpc = (network: string, method: string, params: unknown[] = []) => post(h, `/crypto/rpc/${network}`, key, { jsonrpc: '2.0', id: 1, method, params });
const balanceAt = async (network: string) => {
  const r = await rpc(network, 'eth_getBalance', [WATCHED, 'latest']);
  assert.equal(r.status, 200, r.text);
  return Number(BigInt(r.json.result)) - 1000; // the node's index
};
const usd = async () => (await getBalances(h.svc.store, accountId)).usd;

async function signedTransfer(node: Node, nonceFrom = node): Promise<Hex> {
  const sender = privateKeyToAccount(SENDER_KEY);
  const nonce = Number(BigInt(await direct(nonceFrom, 'eth_getTransactionCount', [sender.address, 'latest'])));
  return signDeadTransfer(sender, nonce);
}

test('a killed node is failed over: the read goes to the next node, billed once; transactions then go to the node in service', async () => {
  assert.equal(await balanceAt('ethereum-mainnet'), 2, 'the first node answers while it is up');
  await stop(nodes[2], 'SIGKILL');
  const before = await usd();
  assert.equal(await balanceAt('ethereum-mainnet'), 1, 'the next node answers');
  assert.equal(before - (await usd()), 14, 'billed once, for the answer');
  const raw = await signedTransfer(nodes[1]);
  const sent = await rpc('ethereum-mainnet', 'eth_sendRawTransaction', [raw]);
  assert.equal(sent.status, 200, sent.text);
  // Anvil mines on its own schedule under load: the receipt may lag the hash by a moment.
  let receipt = await direct(nodes[1], 'eth_getTransactionReceipt', [sent.json.result]);
  for (let i = 0; i < 100 && receipt === null; i++) {
    await new Promise((r) => setTimeout(r, 50));
    receipt = await direct(nodes[1], 'eth_getTransactionReceipt', [sent.json.result]);
  }
  assert.equal(receipt?.status, '0x1', 'mined on the node in service');
});

test('a transaction whose node broke after reading it is not resent to another node: 502, nothing charged', async () => {
  const raw = await signedTransfer(nodes[0]);
  relays[0].mode = 'reset';
  const before = await usd();
  try {
    const r = await rpc('base-mainnet', 'eth_sendRawTransaction', [raw]);
    assert.equal(r.status, 502, r.text);
    assert.equal(r.json.code, 'RPC_UPSTREAM_FAILED');
    assert.ok(!r.text.includes('127.0.0.1'), 'no upstream address in the answer');
    assert.equal(relays[0].count('eth_sendRawTransaction'), 1);
    assert.equal(relays[1].count('eth_sendRawTransaction'), 0, 'never sent twice');
    assert.equal(await usd(), before);
    // A read in the same state fails over (the broken node is out now; the next one answers).
    assert.equal(await balanceAt('base-mainnet'), 1);
  } finally {
    relays[0].mode = 'pass';
  }
});

test('a failing node is taken out (503 once none is left, at no charge) and back in once its health check passes', async () => {
  const before = await usd();
  relays[2].mode = 'error';
  const failed = await rpc('optimism-mainnet', 'eth_blockNumber');
  assert.deepEqual([failed.status, failed.json.code], [502, 'RPC_UPSTREAM_FAILED']);
  const none = await rpc('optimism-mainnet', 'eth_blockNumber');
  assert.deepEqual([none.status, none.json.code], [503, 'RPC_UPSTREAM_UNAVAILABLE']);
  const calls = relays[2].count('eth_blockNumber');
  assert.equal(calls, 1, 'a node out of service is not sent calls');
  assert.equal(await usd(), before);

  relays[2].mode = 'pass';
  // Health checks bring it back; wait for that (bounded), with no assumption about how soon.
  let status = 503;
  for (let i = 0; i < 300 && status === 503; i++) {
    status = (await rpc('optimism-mainnet', 'eth_blockNumber')).status;
    if (status === 503) await new Promise((r) => setTimeout(r, 100));
  }
  assert.equal(status, 200);
  assert.ok(relays[2].count('eth_chainId') >= 1, 'it was probed with the health call');
});

test('a node that never answers is a 504 once the timeout passes, and costs nothing', async () => {
  const before = await usd();
  relays[2].mode = 'hang';
  try {
    const r = await rpc('optimism-mainnet', 'eth_blockNumber');
    assert.equal(r.status, 504, r.text);
    assert.equal(r.json.code, 'RPC_UPSTREAM_TIMEOUT');
    assert.match(r.json.error, /did not answer within 5000 ms/);
    assert.equal(await usd(), before);
  } finally {
    relays[2].mode = 'pass';
  }
});
