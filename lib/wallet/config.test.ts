// Wallet settings: a rail is offered only when fully configured, and a half-configured one stops the start.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig } from '../config.ts';

/** The wallet part of the configuration an environment gives. */
const loadWalletConfig = (env: Record<string, string>, port: number) => loadConfig({ PORT: String(port), ...env }).wallet;

const PAY_TO = '0x2670B922ef37C7Df47158725C0CC407b5382293F';
const KEY = `0x${'11'.repeat(32)}`;

test('defaults: no rails, SIWX bound to localhost, Base and Solana mainnet, $5 to $10,000', () => {
  const c = loadWalletConfig({}, 3000);
  assert.equal(c.publicOrigin, 'http://localhost:3000');
  assert.deepEqual(c.rails, { evm: false, solana: false });
  assert.deepEqual(
    [c.evm.network, c.evm.asset, c.solana.network],
    ['eip155:8453', '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp'],
  );
  assert.deepEqual([c.minTopUp, c.maxTopUp, c.siwx.maxAgeMs], [5_000_000, 10_000_000_000, 300_000]);
  assert.equal(c.facilitatorUrl, undefined);
});

test('a rail is on with its recipient and a way to settle (in-process keys and RPC, or a remote facilitator)', () => {
  const inProcess = loadWalletConfig(
    { LAGOON_X402_BASE_PAY_TO: PAY_TO, LAGOON_X402_BASE_RPC_URL: 'http://127.0.0.1:8545', LAGOON_X402_BASE_FACILITATOR_KEY: KEY },
    3000,
  );
  assert.equal(inProcess.rails.evm, true);
  const remote = loadWalletConfig({ LAGOON_X402_BASE_PAY_TO: PAY_TO, LAGOON_X402_FACILITATOR_URL: 'https://facilitator.internal' }, 3000);
  assert.deepEqual([remote.rails.evm, remote.facilitatorUrl], [true, 'https://facilitator.internal']);
  const sepolia = loadWalletConfig({ LAGOON_X402_BASE_NETWORK: 'base-sepolia', LAGOON_PUBLIC_URL: 'https://chat.example.com/some/path' }, 3000);
  assert.deepEqual([sepolia.evm.network, sepolia.evm.assetName, sepolia.publicOrigin], ['eip155:84532', 'USDC', 'https://chat.example.com']);
});

test('bad or half-finished settings fail loudly at start', () => {
  const bad: Record<string, string>[] = [
    { LAGOON_X402_BASE_PAY_TO: PAY_TO },
    { LAGOON_X402_BASE_PAY_TO: 'not-an-address', LAGOON_X402_FACILITATOR_URL: 'https://f.example' },
    { LAGOON_X402_BASE_FACILITATOR_KEY: '0x1234' },
    { LAGOON_X402_SOLANA_PAY_TO: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v' },
    { LAGOON_X402_SOLANA_FEE_PAYER_KEY: '[1,2,3]' },
    { LAGOON_X402_SOLANA_FEE_PAYER_KEY: JSON.stringify(Array.from({ length: 64 }, (_, i) => i)) },
    { LAGOON_X402_BASE_NETWORK: 'ethereum' },
    { LAGOON_X402_FACILITATOR_URL: 'ftp://x' },
    { LAGOON_X402_MAX_TOPUP_USD: '2' },
    { LAGOON_PUBLIC_URL: 'lagoon.example' },
  ];
  for (const env of bad) assert.throws(() => loadWalletConfig(env, 3000), /^Error: Invalid configuration: LAGOON_/, JSON.stringify(env));
});

test("x402's own upto: on Base by default, on the networks listed, nowhere with `none`", () => {
  assert.equal(loadWalletConfig({}, 3000).evm.uptoPermit2, true);
  assert.equal(loadWalletConfig({ LAGOON_X402_BASE_NETWORK: 'base-sepolia' }, 3000).evm.uptoPermit2, false);
  assert.equal(loadWalletConfig({ LAGOON_X402_BASE_NETWORK: 'base-sepolia', LAGOON_X402_UPTO_NETWORKS: 'base, base-sepolia' }, 3000).evm.uptoPermit2, true);
  assert.equal(loadWalletConfig({ LAGOON_X402_UPTO_NETWORKS: 'none' }, 3000).evm.uptoPermit2, false);
  assert.throws(() => loadWalletConfig({ LAGOON_X402_UPTO_NETWORKS: 'ethereum' }, 3000), /LAGOON_X402_UPTO_NETWORKS/);
});
