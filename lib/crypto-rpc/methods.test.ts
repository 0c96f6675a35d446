// The method tables: tiers, state-changing methods, refusals, extension namespaces, and names that are no methods.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { rpcConfigOf } from './config.ts';
import { DEFAULT_METHOD_SETS, METHOD_NAME, refusalReason, ruleFor } from './methods.ts';
import { DEFAULT_NETWORKS } from './networks.ts';

const rule = (network: string, method: string) => ruleFor(DEFAULT_METHOD_SETS, DEFAULT_NETWORKS[network], method);

describe('method rules', () => {
  test('EVM tiers: standard reads and sends, advanced traces and txpool_status, large replays and txpool_content', () => {
    assert.deepEqual(rule('base-mainnet', 'eth_call'), { tier: 'standard' });
    assert.deepEqual(rule('base-mainnet', 'eth_sendRawTransaction'), { tier: 'standard', sends: true });
    assert.deepEqual(rule('base-mainnet', 'eth_sendUserOperation'), { tier: 'standard', sends: true });
    assert.deepEqual(rule('ethereum-mainnet', 'debug_traceTransaction'), { tier: 'advanced' });
    assert.deepEqual(rule('ethereum-mainnet', 'txpool_status'), { tier: 'advanced' });
    assert.deepEqual(rule('ethereum-mainnet', 'trace_replayTransaction'), { tier: 'large' });
    assert.deepEqual(rule('ethereum-mainnet', 'txpool_content'), { tier: 'large' });
  });

  test('refusals: subscriptions, filters, and anything the tables leave out (node admin, signing by the node)', () => {
    assert.deepEqual(rule('base-mainnet', 'eth_subscribe'), { refused: 'websocket' });
    assert.deepEqual(rule('base-mainnet', 'eth_newFilter'), { refused: 'filter' });
    assert.deepEqual(rule('base-mainnet', 'eth_getFilterChanges'), { refused: 'filter' });
    assert.deepEqual(rule('solana-mainnet', 'accountSubscribe'), { refused: 'websocket' });
    assert.deepEqual(rule('solana-mainnet', 'slotUnsubscribe'), { refused: 'websocket' });
    assert.deepEqual(rule('starknet-mainnet', 'starknet_subscribeNewHeads'), { refused: 'websocket' });
    for (const m of ['eth_sendTransaction', 'eth_sign', 'personal_unlockAccount', 'anvil_setBalance', 'admin_peers', 'constructor', 'toString']) {
      assert.equal(rule('base-mainnet', m), undefined, m);
    }
    assert.match(refusalReason(undefined, 'base-mainnet'), /not available on base-mainnet/);
    assert.match(refusalReason({ refused: 'filter' }, 'base-mainnet'), /filter/);
  });

  test("a method belongs to its network's family: no EVM calls on Solana or Starknet, no Solana calls on EVM", () => {
    assert.equal(rule('solana-mainnet', 'eth_call'), undefined);
    assert.equal(rule('starknet-mainnet', 'eth_call'), undefined);
    assert.equal(rule('base-mainnet', 'getAccountInfo'), undefined);
    assert.deepEqual(rule('solana-mainnet', 'getAccountInfo'), { tier: 'standard' });
    assert.deepEqual(rule('solana-mainnet', 'sendTransaction'), { tier: 'standard', sends: true });
    assert.deepEqual(rule('solana-mainnet', 'getLargestAccounts'), { tier: 'large' });
    assert.deepEqual(rule('starknet-mainnet', 'starknet_addInvokeTransaction'), { tier: 'standard', sends: true });
  });

  test('extension namespaces only on their chains; the longest pattern wins', () => {
    assert.deepEqual(rule('zksync-mainnet', 'zks_getBridgeContracts'), { tier: 'standard' });
    assert.equal(rule('base-mainnet', 'zks_getBridgeContracts'), undefined);
    assert.deepEqual(rule('polygon-mainnet', 'bor_getAuthor'), { tier: 'standard' });
    assert.deepEqual(rule('linea-mainnet', 'linea_estimateGas'), { tier: 'standard' });
    assert.deepEqual(rule('arbitrum-mainnet', 'arbtrace_block'), { tier: 'advanced' });
    assert.deepEqual(rule('arbitrum-mainnet', 'arbtrace_replayTransaction'), { tier: 'large' });
    assert.equal(rule('arbitrum-mainnet', 'arbtrace_'), undefined, 'a prefix alone is no method');
  });

  test('method names: letters, digits and underscores, so none can look like a pattern or a prototype key', () => {
    for (const ok of ['eth_call', 'getAccountInfo', 'zks_L1ChainId']) assert.ok(METHOD_NAME.test(ok), ok);
    for (const bad of ['', 'trace_*', '__proto__', 'eth call', 'eth.call', '1eth', 'x'.repeat(129)]) assert.ok(!METHOD_NAME.test(bad), bad);
  });

  test('LAGOON_RPC_TABLES rules merge over the defaults, and new networks may use extension sets', () => {
    const c = rpcConfigOf({
      upstreams: undefined,
      baseCredits: new Map([['solana-mainnet', 50]]),
      tables: {
        networks: { 'blast-mainnet': { family: 'evm', baseCredits: 20, extensions: ['blast'] } },
        methods: { evm: { eth_call: 'refused', debug_traceCall: { tier: 'large' } }, blast: { 'blast_*': 'standard' } },
      },
      creditPriceUsd: 7e-7,
      errorCredits: 5,
      requestsPerMinute: 100,
      creditsPerDay: 1e7,
      timeoutMs: 30_000,
      healthIntervalMs: 15_000,
      maxBodyBytes: 5 * 1024 * 1024,
    });
    const blast = c.networks.get('blast-mainnet')!;
    assert.deepEqual(ruleFor(c.methodSets, blast, 'eth_call'), { refused: 'refused' });
    assert.deepEqual(ruleFor(c.methodSets, blast, 'debug_traceCall'), { tier: 'large' });
    assert.deepEqual(ruleFor(c.methodSets, blast, 'blast_getYield'), { tier: 'standard' });
    assert.deepEqual(ruleFor(c.methodSets, blast, 'eth_getBalance'), { tier: 'standard' }, 'the rest of the default table stays');
    assert.equal(c.networks.get('solana-mainnet')!.baseCredits, 50);
    assert.equal(DEFAULT_NETWORKS['solana-mainnet'].baseCredits, 30, 'the defaults are not changed');
    assert.deepEqual(rule('base-mainnet', 'eth_call'), { tier: 'standard' }, 'nor the default tables');
  });
});
