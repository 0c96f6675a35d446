// Wallet bodies with the public API's wire names (LAGOON_WIRE_NAME=venice): only the fields its schemas have, the
// top-up fields deployed clients read at the top of topUpInstructions, and 401 (not the discovery 402) for the
// wallet's balance and statement without a sign-in. A real top-up on a local Base chain (anvil) and real signatures.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ensureWallet } from '../../lib/wallet/wallets.ts';
import { type Anvil, startAnvil } from '../support/chains/anvil.ts';
import { type Harness, post, startHarness } from '../support/harness.ts';
import { BASE_PAY_TO, evmPayer, evmWallet, postTopUp, signInHeader, signPayment, walletChat, walletEnv } from './clients.ts';

const BASE_USDC = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
let anvil: Anvil;
let h: Harness;
before(async () => {
  anvil = await startAnvil();
  h = await startHarness({ env: { ...walletEnv({ anvil }), LAGOON_WIRE_NAME: 'venice' } });
});
after(async () => {
  await h?.close();
  await anvil?.close();
});

const decode = (header: string | null) => JSON.parse(Buffer.from(header!, 'base64').toString('utf8'));
const signedGet = async (path: string, header?: string) => {
  const res = await fetch(`${h.base}${path}`, { headers: header ? { 'SIGN-IN-WITH-X': header } : {} });
  return { status: res.status, json: await res.json() };
};

test('discovery 402: authOptions without this server-only challenge field', async () => {
  const r = await post(h, '/chat/completions', undefined, { model: 'scripted-model', messages: [{ role: 'user', content: 'hi' }] });
  assert.equal(r.status, 402);
  assert.deepEqual(r.json.authOptions.x402Wallet, { header: 'SIGN-IN-WITH-X', legacyHeader: 'X-Sign-In-With-X', topUp: 'POST /api/v1/x402/top-up' });
});

test('a wallet without credit: topUpInstructions with receiverWallet, tokenAddress and network; then a top-up, balance and statement in the public shapes', async () => {
  const account = evmWallet();
  await ensureWallet(h.svc.store, 'eip155', account.address);
  const r = await walletChat(h, await signInHeader(h, account));
  assert.equal(r.status, 402, r.text);
  assert.equal(r.json.code, 'PAYMENT_REQUIRED');
  const t = r.json.topUpInstructions;
  assert.deepEqual(Object.keys(t), ['step1', 'step2', 'step3', 'receiverWallet', 'tokenAddress', 'tokenDecimals', 'network', 'minimumAmountUsd']);
  assert.deepEqual([t.receiverWallet, t.tokenAddress, t.tokenDecimals, t.network, t.minimumAmountUsd], [BASE_PAY_TO, BASE_USDC, 6, 'eip155:8453', 5]);
  assert.deepEqual(Object.keys(r.json.siwxChallenge), ['info', 'supportedChains']);
  assert.equal(r.json.maximumTopUpUsd, undefined);
  assert.equal(typeof r.json.description, 'string');

  // Pay what the 402 asked for, on the local chain.
  await anvil.mint(account.address, 20_000_000n);
  const topUp = await postTopUp(h, await signPayment(evmPayer(account), decode(r.headers.get('payment-required'))));
  assert.equal(topUp.status, 200, topUp.text);
  assert.deepEqual(Object.keys(topUp.json.data), ['walletAddress', 'amountCredited', 'newBalance', 'paymentId']);

  // The wallet's balance and statement: 401 without a sign-in, the public fields with one.
  const bare = await signedGet(`/x402/balance/${account.address}`);
  assert.equal(bare.status, 401);
  assert.equal(bare.json.error, 'Invalid Sign-in-with-x signature');
  assert.equal((await signedGet(`/x402/transactions/${account.address}`)).status, 401);
  const balance = await signedGet(`/x402/balance/${account.address}`, await signInHeader(h, account));
  assert.equal(balance.status, 200);
  assert.deepEqual(Object.keys(balance.json.data), ['walletAddress', 'balanceUsd', 'canConsume', 'minimumTopUpUsd', 'suggestedTopUpUsd']);
  assert.equal(balance.json.data.balanceUsd, topUp.json.data.newBalance);
  const statement = await signedGet(`/x402/transactions/${account.address}`, await signInHeader(h, account));
  assert.equal(statement.status, 200);
  assert.deepEqual(
    statement.json.data.transactions.map((x: Record<string, unknown>) => Object.keys(x)),
    [['id', 'type', 'amount', 'balanceAfter', 'createdAt', 'requestId', 'modelId']],
  );
  assert.equal(statement.json.data.transactions[0].type, 'TOP_UP');
});
