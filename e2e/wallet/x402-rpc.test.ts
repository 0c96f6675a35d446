// x402 per request on the crypto JSON-RPC proxy (LAGOON_X402_PER_REQUEST=1), on anvil: the node behind the proxy is
// the same chain the payments settle on. A call without credentials hears its price (`exact`: its credits at their
// worst case); the published x402 client pays it and gets the node's answer with the settlement. The proxy's own
// rules hold for a payer as for a key: an Idempotency-Key replays the answer after a dropped response (the spent
// payment presented again pays nothing twice, and buys only its own answer), the per-caller caps refuse before any
// money moves, and a batch answered with errors is charged what it cost, the rest staying the wallet's credit.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { decodePaymentRequiredHeader } from '@x402/core/http';
import type { PaymentRequired, PaymentRequirements } from '@x402/core/types';
import { decodePaymentResponseHeader, wrapFetchWithPayment, x402Client } from '@x402/fetch';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import type { LocalAccount } from 'viem';
import { type Anvil, startAnvil } from '../support/chains/anvil.ts';
import { type RpcRelay, startRelay } from '../support/chains/rpc-relay.ts';
import { type Harness, startHarness } from '../support/harness.ts';
import { BASE_PAY_TO, evmWallet, signPayment, walletEnv, walletStatement } from './clients.ts';

let anvil: Anvil;
let relay: RpcRelay;
let h: Harness;

before(async () => {
  anvil = await startAnvil();
  relay = await startRelay(anvil.rpcUrl);
  h = await startHarness({
    env: {
      ...walletEnv({ anvil }),
      LAGOON_X402_PER_REQUEST: '1',
      LAGOON_RPC_UPSTREAMS: `base-mainnet=${relay.url}`,
      LAGOON_RPC_HEALTH_INTERVAL_MS: '600000',
      LAGOON_RPC_REQUESTS_PER_MINUTE: '6',
    },
  });
});
after(async () => {
  await h?.close();
  await relay?.close();
  await anvil?.close();
});

// 20 credits a standard call at 0.0000007 USD: 14 micro-USD (USDC units).
const CALL_PRICE = 14;
const call = (method: string, params: unknown[] = [], id: number | string = 1) => ({ jsonrpc: '2.0', id, method, params });
const rpc = (body: unknown, headers: Record<string, string> = {}, pay: typeof fetch = fetch) =>
  pay(`${h.base}/crypto/rpc/base-mainnet`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
const forwarded = () => relay.methods.filter((m) => m !== 'eth_chainId').length;

async function funded(usd = 0.01): Promise<{ account: LocalAccount; client: x402Client }> {
  const account = evmWallet();
  await anvil.mint(account.address, BigInt(Math.round(usd * 1_000_000)));
  return { account, client: new x402Client().register('eip155:8453', new ExactEvmScheme(account)) };
}

async function priceOf(body: unknown): Promise<PaymentRequired> {
  const res = await rpc(body);
  assert.equal(res.status, 402, await res.clone().text());
  return decodePaymentRequiredHeader(res.headers.get('payment-required')!);
}

const statement = (account: LocalAccount) => walletStatement(h, account);

test('a call without credentials: 402 with its exact price, and nothing reaches the node', async () => {
  const before = forwarded();
  const res = await rpc(call('eth_getBalance', [BASE_PAY_TO, 'latest']));
  assert.equal(res.status, 402);
  const body = await res.json();
  assert.deepEqual(
    body.accepts.map((a: PaymentRequirements) => [a.scheme, a.network, a.amount, a.payTo]),
    [['exact', 'eip155:8453', String(CALL_PRICE), BASE_PAY_TO]],
  );
  assert.deepEqual(decodePaymentRequiredHeader(res.headers.get('payment-required')!).accepts, body.accepts);
  assert.match(body.resource.url, /\/api\/v1\/crypto\/rpc\/base-mainnet$/);
  // A batch is priced as a whole: three calls, 60 credits.
  assert.equal((await priceOf([1, 2, 3].map((i) => call('eth_blockNumber', [], i)))).accepts[0].amount, String(3 * CALL_PRICE));
  // Refusals come before the price, as for a key.
  const refused = await rpc(call('eth_subscribe', ['newHeads']));
  assert.deepEqual([refused.status, (await refused.json()).code], [400, 'RPC_METHOD_NOT_SUPPORTED']);
  assert.equal(forwarded(), before);
});

test('the published x402 client pays one call: the node’s answer, the settlement, the payment and the charge', async () => {
  const { account, client } = await funded();
  const payTo = await anvil.usdcBalance(BASE_PAY_TO);
  const before = forwarded();
  const res = await rpc(call('eth_getBalance', [BASE_PAY_TO, 'latest'], 'c-1'), {}, wrapFetchWithPayment(fetch, client));
  assert.equal(res.status, 200, await res.clone().text());
  const answer = await res.json();
  assert.deepEqual([answer.id, BigInt(answer.result)], ['c-1', 0n], 'the node’s answer (ETH, not USDC)');
  assert.equal(res.headers.get('x-service-rpc-credits'), '20');
  assert.equal(res.headers.get('x-balance-remaining'), '0.000000');
  const settlement = decodePaymentResponseHeader(res.headers.get('payment-response')!);
  assert.deepEqual([settlement.success, settlement.network, settlement.payer?.toLowerCase()], [true, 'eip155:8453', account.address.toLowerCase()]);
  assert.equal((await anvil.usdcBalance(BASE_PAY_TO)) - payTo, BigInt(CALL_PRICE));
  assert.equal(forwarded(), before + 1);
  const s = await statement(account);
  assert.deepEqual(
    s.transactions.map((t) => [t.type, Math.round(t.amount * 1e6)]),
    [
      ['CHARGE', -CALL_PRICE],
      ['TOP_UP', CALL_PRICE],
    ],
  );
  assert.equal(s.transactions[0].requestId, s.transactions[1].requestId, 'the payment names the call it paid for');
});

test('Idempotency-Key: the retry after a dropped response replays the answer and the settlement; the payment buys nothing else', async () => {
  const { account, client } = await funded();
  const body = call('eth_blockNumber', [], 9);
  const header = await signPayment(client, await priceOf(body));
  const headers = { 'PAYMENT-SIGNATURE': header, 'Idempotency-Key': 'rpc-paid-1' };
  const payTo = await anvil.usdcBalance(BASE_PAY_TO);
  const before = forwarded();

  // The first attempt is paid and reaches the node; the client gives up before the answer.
  const held = relay.hold('eth_blockNumber');
  const gaveUp = new AbortController();
  const first = rpc(body, headers, ((url, init) => fetch(url, { ...init, signal: gaveUp.signal })) as typeof fetch).catch((e: Error) => e);
  await held.arrived;
  gaveUp.abort();
  assert.ok((await first) instanceof Error);

  // The retry presents the same (now spent) payment: it waits for the first attempt and gets its answer.
  const retry = rpc(body, headers);
  held.release();
  const r = await retry;
  assert.equal(r.status, 200, await r.clone().text());
  assert.equal(r.headers.get('idempotent-replayed'), 'true');
  assert.match((await r.json()).result, /^0x[0-9a-f]+$/);
  assert.equal(decodePaymentResponseHeader(r.headers.get('payment-response')!).success, true, 'the first attempt’s settlement');
  assert.equal(forwarded(), before + 1, 'the node was asked once');
  assert.equal((await anvil.usdcBalance(BASE_PAY_TO)) - payTo, BigInt(CALL_PRICE), 'paid once');

  // The spent payment with no key, or under another key, runs nothing: 409.
  for (const extra of [{}, { 'Idempotency-Key': 'rpc-paid-other' }] as Record<string, string>[]) {
    const again = await rpc(body, { 'PAYMENT-SIGNATURE': header, ...extra });
    assert.deepEqual([again.status, (await again.json()).code], [409, 'PAYMENT_ALREADY_CREDITED']);
  }
  // Nor does it buy the stored answer of another of the wallet's calls (one paid with another payment).
  const other = { 'PAYMENT-SIGNATURE': await signPayment(client, await priceOf(body)), 'Idempotency-Key': 'rpc-paid-2' };
  assert.equal((await rpc(body, other)).status, 200);
  const borrowed = await rpc(body, { 'PAYMENT-SIGNATURE': header, 'Idempotency-Key': 'rpc-paid-2' });
  assert.deepEqual([borrowed.status, (await borrowed.json()).code], [409, 'PAYMENT_ALREADY_CREDITED']);
  assert.equal(forwarded(), before + 2);
  const s = await statement(account);
  assert.equal(s.transactions.length, 4);
});

test('the per-caller caps hold for a payer: the call over the cap is a 429 and its payment is not taken', async () => {
  const { account, client } = await funded();
  const pay = wrapFetchWithPayment(fetch, client);
  // LAGOON_RPC_REQUESTS_PER_MINUTE=6: the payer's wallet makes six paid calls, the seventh is refused.
  for (let i = 0; i < 6; i++) assert.equal((await rpc(call('eth_blockNumber', [], i), {}, pay)).status, 200);
  const payTo = await anvil.usdcBalance(BASE_PAY_TO);
  const header = await signPayment(client, await priceOf(call('eth_blockNumber', [], 7)));
  const r = await rpc(call('eth_blockNumber', [], 7), { 'PAYMENT-SIGNATURE': header });
  assert.equal(r.status, 429, await r.clone().text());
  assert.equal((await r.json()).type, 'RPM');
  assert.equal(await anvil.usdcBalance(BASE_PAY_TO), payTo, 'no money moved');
  assert.equal(await anvil.usdcBalance(account.address), 10_000n - 6n * BigInt(CALL_PRICE));
  assert.equal((await statement(account)).transactions.length, 12);
});

test('a batch the node answers with errors is charged what it cost; the rest of its price stays the wallet’s', async () => {
  const { account, client } = await funded();
  const batch = [1, 2, 3, 4].map((i) => call('eth_getBalance', ['0xnot-an-address'], i));
  const required = await priceOf(batch);
  assert.equal(required.accepts[0].amount, String(4 * CALL_PRICE));
  const r = await rpc(batch, { 'PAYMENT-SIGNATURE': await signPayment(client, required) });
  assert.equal(r.status, 200, await r.clone().text());
  // Four JSON-RPC errors at 5 credits: 20 credits, 14 micro-USD of the 56 paid.
  assert.equal(r.headers.get('x-service-rpc-credits'), '20');
  assert.equal(r.headers.get('x-balance-remaining'), '0.000042');
  const s = await statement(account);
  assert.equal(Math.round(s.currentBalance * 1e6), 3 * CALL_PRICE);
  assert.deepEqual(
    s.transactions.map((t) => [t.type, Math.round(t.amount * 1e6)]),
    [
      ['CHARGE', -CALL_PRICE],
      ['TOP_UP', 4 * CALL_PRICE],
    ],
  );
});

test('a payment for another price is a 402 naming the right one, and nothing reaches the node', async () => {
  const { account, client } = await funded();
  const before = forwarded();
  const one = call('eth_blockNumber', [], 1);
  const forOne = await signPayment(client, await priceOf(one));
  const r = await rpc([one, call('eth_blockNumber', [], 2)], { 'PAYMENT-SIGNATURE': forOne });
  assert.equal(r.status, 402);
  const b = await r.json();
  assert.equal(b.code, 'PAYMENT_AMOUNT_MISMATCH');
  assert.equal(b.accepts[0].amount, String(2 * CALL_PRICE));
  assert.equal(forwarded(), before);
  assert.equal(await anvil.usdcBalance(account.address), 10_000n);
});
