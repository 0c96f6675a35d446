// The crypto JSON-RPC proxy against a real EVM node (anvil, behind a loopback relay that counts what reaches it):
// single calls and batches relayed as the node sent them, tier pricing and JSON-RPC errors at the flat rate, every
// refusal (forwarding and charging nothing), keys and wallets (X-Balance-Remaining, the 402s), a signed transaction
// retried after a dropped connection (sent once, charged once), the per-caller caps (429 naming each), the usage rows,
// and an unmodified client: viem's http transport reads a balance and sends a transaction through the proxy.
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { createPublicClient, createWalletClient, defineChain, type Hex, http, type PublicClient } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { getBalances, grantUsd } from '../../lib/billing/ledger.ts';
import { ensureWallet } from '../../lib/wallet/wallets.ts';
import { signDeadTransfer, spawnAnvil, stopSpawnedAnvil } from '../support/chains/anvil.ts';
import { type RpcRelay, startRelay } from '../support/chains/rpc-relay.ts';
import { get, type Harness, post, startHarness } from '../support/harness.ts';
import { evmWallet, signInHeader, walletEnv } from '../wallet/clients.ts';

// anvil's development accounts 2 and 3 (10,000 ETH each); 0 and 1 belong to other helpers.
const SENDER_KEY: Hex = '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a';
const VIEM_KEY: Hex = '0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6';
const chain = defineChain({ id: 8453, name: 'base-local', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [] } } });

let anvil: { proc: ChildProcess; rpcUrl: string };
let relay: RpcRelay;
let h: Harness;
let direct: PublicClient;

before(async () => {
  anvil = await spawnAnvil();
  relay = await startRelay(anvil.rpcUrl);
  direct = createPublicClient({ chain, transport: http(anvil.rpcUrl) }) as PublicClient;
  h = await startHarness({
    env: {
      ...walletEnv({}),
      LAGOON_RPC_UPSTREAMS: `base-mainnet=${relay.url};ethereum-mainnet=${relay.url}`,
      // Health probes (eth_chainId) reach the relay too; the tests count other methods.
      LAGOON_RPC_HEALTH_INTERVAL_MS: '600000',
    },
  });
});
after(async () => {
  await h?.close();
  await relay?.close();
  await stopSpawnedAnvil(anvil);
});

const call = (method: string, params: unknown[] = [], id: number | string = 1) => ({ jsonrpc: '2.0', id, method, params });
const rpc = (key: string | undefined, body: unknown, headers: Record<string, string> = {}, network = 'base-mainnet') =>
  post(h, `/crypto/rpc/${network}`, key, body, headers);
const usd = async (accountId: string) => (await getBalances(h.svc.store, accountId)).usd;
const forwarded = () => relay.methods.filter((m) => m !== 'eth_chainId').length;
const usageRows = (accountId: string) =>
  h.svc.store.all<{ model_id: string; endpoint: string; unit: string; quantity: number; usd: number }>(
    'SELECT model_id, endpoint, unit, quantity, usd FROM usage WHERE account_id = $1',
    [accountId],
  );

describe('the JSON-RPC proxy on anvil', () => {
  test('GET /crypto/rpc/networks is public and lists the networks with an upstream, sorted', async () => {
    const r = await get(h, '/crypto/rpc/networks');
    assert.equal(r.status, 200);
    assert.deepEqual(r.json, { networks: ['base-mainnet', 'ethereum-mainnet'] });
  });

  test("a single call: the node's answer as it sent it, 20 credits, the credit, cost and request-id headers", async () => {
    const { accountId, key } = await h.newAccount({ usd: 1, keyType: 'ADMIN' });
    const body = call('eth_getBalance', ['0x70997970C51812dc3A010C7d01b50e0d17dc79C8', 'latest'], 'a-1');
    const fromNode = await (await fetch(anvil.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).text();
    const r = await rpc(key, body);
    assert.equal(r.status, 200, r.text);
    assert.equal(r.text, fromNode);
    assert.equal(r.headers.get('content-type'), 'application/json');
    assert.equal(r.headers.get('x-service-rpc-credits'), '20');
    assert.equal(r.headers.get('x-service-rpc-cost-usd'), '0.00001400');
    // The public document's 32 characters: the CF-RAY id, zero-padded in front.
    assert.match(r.headers.get('x-request-id') ?? '', /^[0-9a-f]{32}$/);
    assert.equal(r.headers.get('x-request-id'), r.headers.get('cf-ray')?.padStart(32, '0'));
    assert.equal(r.headers.get('x-ratelimit-limit-requests'), '100');
    assert.equal(r.headers.get('x-balance-remaining'), null, 'for wallets only');
    assert.equal(await usd(accountId), 1_000_000 - 14);

    const history = await get(h, '/billing/usage-history', key);
    assert.equal(history.status, 200, history.text);
    const [row] = history.json.data;
    assert.deepEqual(
      [row.modelId, row.endpoint, row.unit, row.quantity, row.usd],
      ['rpc:base-mainnet', '/crypto/rpc/base-mainnet', 'rpc_credit', 20, 0.000014],
    );
    assert.deepEqual(row.rpc, { network: 'base-mainnet', methods: [{ method: 'eth_getBalance', calls: 1, credits: 20, errors: 0 }] });
  });

  test('a batch costs the sum of its tiers (1×, 2×, 4×); a JSON-RPC error costs 5 credits and stays a 200', async () => {
    const { accountId, key } = await h.newAccount({ usd: 1, keyType: 'ADMIN' });
    const sent = forwarded();
    const batch = [
      call('eth_blockNumber', [], 1),
      call('txpool_status', [], 2),
      call('txpool_content', [], 3),
      call('eth_getBalance', ['0xnot-an-address'], 4),
    ];
    const r = await rpc(key, batch);
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(
      r.json.map((a: any) => [a.id, a.error === undefined]),
      [
        [1, true],
        [2, true],
        [3, true],
        [4, false],
      ],
    );
    assert.equal(forwarded() - sent, 4, 'one upstream request carried the whole batch');
    assert.equal(r.headers.get('x-service-rpc-credits'), String(20 + 40 + 80 + 5));
    assert.equal(r.headers.get('x-service-rpc-cost-usd'), '0.00010150');
    // 145 credits at 0.7 micro-USD: 101.5; the whole micro-units are billed, the half carried to the next charge.
    assert.equal(await usd(accountId), 1_000_000 - 101);

    const failed = await rpc(key, call('eth_getBalance', ['0xnot-an-address'], 9));
    assert.equal(failed.status, 200);
    assert.equal(failed.json.error.code, -32602);
    assert.equal(failed.headers.get('x-service-rpc-credits'), '5');
    assert.deepEqual(
      (await usageRows(accountId)).map((u) => u.quantity).sort((a, b) => a - b),
      [5, 145],
    );
    // 5 credits: 3.5, and the half carried: 4 whole micro-units, nothing left over (101.5 + 3.5 = 105 in all).
    assert.equal(await usd(accountId), 1_000_000 - 105);

    const analytics = await get(h, '/billing/usage-analytics', key);
    const [model] = analytics.json.data.byModel;
    assert.deepEqual([model.modelId, model.unit, model.quantity, model.requests], ['rpc:base-mainnet', 'rpc_credit', 150, 2]);
    assert.deepEqual(model.rpc, {
      network: 'base-mainnet',
      methods: [
        { method: 'txpool_content', calls: 1, credits: 80, errors: 0 },
        { method: 'txpool_status', calls: 1, credits: 40, errors: 0 },
        { method: 'eth_blockNumber', calls: 1, credits: 20, errors: 0 },
        { method: 'eth_getBalance', calls: 2, credits: 10, errors: 2 },
      ],
    });
  });

  test('refusals are 400s that forward nothing and charge nothing; one refused call refuses the whole batch', async () => {
    const { accountId, key } = await h.newAccount({ usd: 1 });
    const sent = forwarded();
    const refused = async (r: Awaited<ReturnType<typeof rpc>>, code: string, pattern?: RegExp) => {
      assert.equal(r.status, 400, r.text);
      assert.equal(r.json.code, code, r.text);
      if (pattern) assert.match(r.json.error, pattern);
      return r.json;
    };
    await refused(await rpc(key, call('eth_blockNumber'), {}, 'dogecoin-mainnet'), 'RPC_NETWORK_NOT_SUPPORTED', /GET \/crypto\/rpc\/networks/);
    await refused(await rpc(key, call('getSlot'), {}, 'solana-mainnet'), 'RPC_NETWORK_NOT_SUPPORTED'); // known, but no upstream here
    await refused(await rpc(key, call('eth_blockNumber'), {}, '__proto__'), 'RPC_NETWORK_NOT_SUPPORTED');
    await refused(await rpc(key, ''), 'INVALID_JSON', /empty/);
    await refused(await rpc(key, []), 'INVALID_REQUEST', /empty/);
    await refused(
      await rpc(
        key,
        Array.from({ length: 101 }, (_, i) => call('eth_blockNumber', [], i)),
      ),
      'INVALID_REQUEST',
      /at most 100/,
    );
    await refused(await rpc(key, { jsonrpc: '2.0', id: 1, params: [] }), 'INVALID_REQUEST', /method/);
    assert.deepEqual((await refused(await rpc(key, call('getAccountInfo', ['x'])), 'RPC_METHOD_NOT_SUPPORTED', /not available on base-mainnet/)).methods, [
      'getAccountInfo',
    ]);
    await refused(await rpc(key, call('eth_subscribe', ['newHeads'])), 'RPC_METHOD_NOT_SUPPORTED', /WebSocket/);
    for (const m of ['eth_newFilter', 'eth_newBlockFilter', 'eth_getFilterChanges', 'eth_getFilterLogs', 'eth_uninstallFilter']) {
      await refused(await rpc(key, call(m, [])), 'RPC_METHOD_NOT_SUPPORTED', /filter methods/);
    }
    // The node's own accounts and admin namespaces are never reachable through the proxy.
    for (const m of ['eth_sendTransaction', 'eth_accounts', 'anvil_setBalance', 'evm_mine', 'personal_sign']) {
      await refused(await rpc(key, call(m, [])), 'RPC_METHOD_NOT_SUPPORTED');
    }
    const batch = await refused(
      await rpc(key, [call('eth_blockNumber', [], 1), call('eth_newFilter', [{}], 2), call('eth_subscribe', ['logs'], 3), call('eth_newFilter', [{}], 4)]),
      'RPC_METHOD_NOT_SUPPORTED',
      /The batch calls methods not supported on base-mainnet: eth_newFilter \(.*\); eth_subscribe \(.*\)/,
    );
    assert.deepEqual(batch.methods, ['eth_newFilter', 'eth_subscribe']);
    await refused(await rpc(key, call('eth_blockNumber'), { 'Idempotency-Key': 'not a key!' }), 'INVALID_REQUEST', /Idempotency-Key/);
    const text = await fetch(`${h.base}/crypto/rpc/base-mainnet`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'text/plain' },
      body: JSON.stringify(call('eth_blockNumber')),
    });
    assert.equal(text.status, 415);
    // Past LAGOON_RPC_MAX_BODY_BYTES (5 MiB, geth's own limit): a 413 before anything is parsed or forwarded.
    const huge = await rpc(key, call('eth_call', [{ to: '0x0000000000000000000000000000000000000001', data: `0x${'00'.repeat(3 << 20)}` }, 'latest']));
    assert.equal(huge.status, 413, huge.text.slice(0, 300));
    assert.equal(huge.json.code, 'PAYLOAD_TOO_LARGE');
    assert.match(huge.json.error, /larger than 5 MB/);
    assert.equal((await get(h, '/crypto/rpc/base-mainnet', key)).status, 405);
    // A member named twice (issue 28): validated as the last, forwarded as sent, a node may read the first.
    for (const raw of [
      '{"jsonrpc":"2.0","id":1,"method":"admin_addPeer","method":"eth_blockNumber","params":[]}',
      '[{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]},{"jsonrpc":"2.0","id":2,"method":"admin_addPeer","\\u006dethod":"eth_chainId"}]',
    ]) {
      const dup = await fetch(`${h.base}/crypto/rpc/base-mainnet`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: raw,
      });
      const dj = await dup.json();
      assert.deepEqual([dup.status, dj.code], [400, 'INVALID_REQUEST'], JSON.stringify(dj));
      assert.match(dj.error, /"method" twice/);
    }

    assert.equal(forwarded(), sent, 'nothing reached the node');
    assert.equal(await usd(accountId), 1_000_000);
    assert.deepEqual(await usageRows(accountId), []);
  });

  test('callers: no credential gets the x402 discovery 402, a bad key 401, an account without credit 402; nothing is forwarded', async () => {
    const sent = forwarded();
    const none = await rpc(undefined, call('eth_blockNumber'));
    assert.equal(none.status, 402);
    assert.equal(none.json.x402Version, 2);
    assert.equal((await rpc('lgn_inf_nope', call('eth_blockNumber'))).status, 401);
    const { accountId, key } = await h.newAccount({ usd: 0 });
    const broke = await rpc(key, call('eth_blockNumber'));
    assert.deepEqual([broke.status, broke.json.code], [402, 'INSUFFICIENT_BALANCE']);
    assert.equal(forwarded(), sent);
    assert.deepEqual(await usageRows(accountId), []);
  });

  test('a wallet pays from its balance, with X-Balance-Remaining; a wallet without credit gets the wallet 402', async () => {
    const account = evmWallet();
    const w = await ensureWallet(h.svc.store, 'eip155', account.address);
    await grantUsd(h.svc.store, w.accountId, 1_000_000);
    const r = await rpc(undefined, call('eth_blockNumber'), { 'SIGN-IN-WITH-X': await signInHeader(h, account) });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.headers.get('x-balance-remaining'), '0.999986');
    assert.equal(r.headers.get('x-service-rpc-credits'), '20');

    const poor = evmWallet();
    await ensureWallet(h.svc.store, 'eip155', poor.address);
    const refused = await rpc(undefined, call('eth_blockNumber'), { 'SIGN-IN-WITH-X': await signInHeader(h, poor) });
    assert.equal(refused.status, 402, refused.text);
    assert.equal(refused.json.code, 'PAYMENT_REQUIRED');
    assert.ok(refused.json.siwxChallenge, 'how to sign in again after topping up');
  });

  test('a signed transaction retried after a dropped connection is sent once and charged once (Idempotency-Key)', async () => {
    const { accountId, key } = await h.newAccount({ usd: 1 });
    const sender = privateKeyToAccount(SENDER_KEY);
    const raw = await signDeadTransfer(sender, await direct.getTransactionCount({ address: sender.address }), 12345n);
    const body = call('eth_sendRawTransaction', [raw], 7);
    const headers = { 'Idempotency-Key': 'send-7f3a' };
    const held = relay.hold('eth_sendRawTransaction');

    // The first attempt reaches the node, and the client gives up before the answer.
    const gaveUp = new AbortController();
    const first = fetch(`${h.base}/crypto/rpc/base-mainnet`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, ...headers },
      body: JSON.stringify(body),
      signal: gaveUp.signal,
    }).catch((e: Error) => e);
    await held.arrived;
    gaveUp.abort();
    assert.ok((await first) instanceof Error);

    // The retry arrives while the first is still at the node: it waits for that answer rather than sending again.
    const retry = rpc(key, body, headers);
    held.release();
    const r = await retry;
    assert.equal(r.status, 200, r.text);
    assert.equal(r.headers.get('idempotent-replayed'), 'true');
    assert.equal(r.headers.get('x-service-rpc-credits'), '20');
    const hash = r.json.result as Hex;
    assert.match(hash, /^0x[0-9a-f]{64}$/);
    assert.equal(relay.count('eth_sendRawTransaction'), 1, 'the node saw the transaction once');
    // anvil mines it at once, but on a loaded machine the receipt may follow the answer by a moment.
    assert.equal((await direct.waitForTransactionReceipt({ hash, pollingInterval: 50 })).status, 'success');

    // Later retries replay it too, answering with the id the retry's transport gave it (viem and @solana/kit number
    // every request); the key with another call, or on another network, is refused.
    const again = await rpc(key, body, headers);
    assert.deepEqual([again.status, again.headers.get('idempotent-replayed'), again.text], [200, 'true', r.text]);
    const renumbered = await rpc(key, call('eth_sendRawTransaction', [raw], 'retry-8'), headers);
    assert.deepEqual([renumbered.status, renumbered.json], [200, { ...r.json, id: 'retry-8' }]);
    const other = await rpc(key, call('eth_sendRawTransaction', [raw.replace(/.$/, (c) => (c === '0' ? '1' : '0'))], 7), headers);
    assert.deepEqual([other.status, other.json.code], [422, 'IDEMPOTENCY_KEY_REUSED']);
    const elsewhere = await rpc(key, body, headers, 'ethereum-mainnet');
    assert.deepEqual([elsewhere.status, elsewhere.json.code], [422, 'IDEMPOTENCY_KEY_REUSED']);
    assert.equal(relay.count('eth_sendRawTransaction'), 1);
    assert.equal(await usd(accountId), 1_000_000 - 14, 'charged once');
    assert.equal((await usageRows(accountId)).length, 1);
  });

  test("viem's http transport, unmodified, reads a balance and sends a transaction through the proxy", async () => {
    const { accountId, key } = await h.newAccount({ usd: 1 });
    const transport = http(`${h.base}/crypto/rpc/base-mainnet`, { fetchOptions: { headers: { Authorization: `Bearer ${key}` } }, retryCount: 0 });
    const client = createPublicClient({ chain, transport });
    const account = privateKeyToAccount(VIEM_KEY);
    assert.equal(await client.getBalance({ address: account.address }), await direct.getBalance({ address: account.address }));

    const to = evmWallet().address;
    const wallet = createWalletClient({ account, chain, transport });
    const hash = await wallet.sendTransaction({ to, value: 1_000_000_000n });
    const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 50 });
    assert.equal(receipt.status, 'success');
    assert.equal(await direct.getBalance({ address: to }), 1_000_000_000n);
    const rows = await usageRows(accountId);
    assert.ok(rows.length >= 4, `${rows.length} billed calls`);
    assert.ok(rows.every((u) => u.unit === 'rpc_credit' && u.model_id === 'rpc:base-mainnet'));
  });
});

describe('per-caller caps', () => {
  let limited: Harness;
  before(async () => {
    limited = await startHarness({
      env: {
        LAGOON_RPC_UPSTREAMS: `base-mainnet=${relay.url}`,
        LAGOON_RPC_REQUESTS_PER_MINUTE: '5',
        LAGOON_RPC_CREDITS_PER_DAY: '100',
        LAGOON_RPC_HEALTH_INTERVAL_MS: '600000',
      },
    });
  });
  after(() => limited?.close());
  const send = (key: string, body: unknown) => post(limited, '/crypto/rpc/base-mainnet', key, body);

  test('requests per minute: the sixth is a 429 that names the cap, with retry-after; another key is unaffected', async () => {
    const { key } = await limited.newAccount({ usd: 1 });
    for (let i = 0; i < 5; i++) assert.equal((await send(key, call('eth_getBalance', ['0xnot-an-address']))).status, 200);
    const r = await send(key, call('eth_blockNumber'));
    assert.equal(r.status, 429);
    assert.equal(r.json.type, 'RPM');
    assert.match(r.json.customMessage, /5 JSON-RPC requests per minute/);
    assert.ok(Number(r.headers.get('retry-after')) >= 1);
    assert.equal(r.headers.get('x-ratelimit-remaining'), '0');
    assert.equal(r.headers.get('x-ratelimit-limit-requests'), '5');
    const other = await limited.newAccount({ usd: 1 });
    assert.equal((await send(other.key, call('eth_blockNumber'))).status, 200);
  });

  test('credits per 24 h: the worst case must fit, what a call cost is what counts, and the 429 says which cap tripped', async () => {
    const { accountId, key } = await limited.newAccount({ usd: 1 });
    // Reserved at 4 × 20 = 80, but the node answered errors: 20 credits count.
    const errors = await send(
      key,
      [1, 2, 3, 4].map((i) => call('eth_getBalance', ['0xnot-an-address'], i)),
    );
    assert.equal(errors.headers.get('x-service-rpc-credits'), '20');
    const batch = await send(
      key,
      [1, 2, 3].map((i) => call('eth_blockNumber', [], i)),
    );
    assert.equal(batch.status, 200);
    assert.equal(batch.headers.get('x-ratelimit-remaining-credits'), '20');
    const full = await send(key, call('eth_blockNumber'));
    assert.equal(full.headers.get('x-ratelimit-remaining-credits'), '0');
    const r = await send(key, call('eth_blockNumber'));
    assert.equal(r.status, 429, r.text);
    assert.equal(r.json.type, 'CREDITS');
    assert.match(r.json.customMessage, /100 JSON-RPC credits per rolling 24 hours/);
    assert.ok(Number(r.headers.get('retry-after')) >= 1);
    const big = await send(
      (await limited.newAccount({ usd: 1 })).key,
      [1, 2, 3, 4, 5, 6].map((i) => call('eth_blockNumber', [], i)),
    );
    assert.equal(big.status, 429);
    assert.match(big.json.customMessage, /may cost 120 credits, more than the cap of 100/);
    const rows = await limited.svc.store.all<{ quantity: number }>('SELECT quantity FROM usage WHERE account_id = $1', [accountId]);
    assert.deepEqual(
      rows.map((u) => Number(u.quantity)).sort((a, b) => a - b),
      [20, 20, 60],
    );
  });
});
