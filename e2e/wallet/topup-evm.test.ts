// POST /x402/top-up on Base (a local anvil chain at chain id 8453, test USDC at the Base USDC address), paid by the
// published x402 client, the x402 v1 envelope and the hybrid one deployed clients send; every payment a client
// could tamper with is refused before settlement, and every replay is credited once.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { decodePaymentResponseHeader } from '@x402/core/http';
import { type Hex, hexToBigInt, parseSignature, serializeSignature, toHex } from 'viem';
import { type Anvil, CONTRACTS, startAnvil, USDC } from '../support/chains/anvil.ts';
import { type Harness, startHarness } from '../support/harness.ts';
import {
  BASE_PAY_TO,
  editHeader,
  evmPayer,
  evmWallet,
  postTopUp,
  signAuthorization,
  signInHeader,
  signPayment,
  toBase64Json,
  topUpRequirements,
  walletEnv,
} from './clients.ts';

let anvil: Anvil;
let h: Harness;
before(async () => {
  anvil = await startAnvil();
  h = await startHarness({ env: { ...walletEnv({ anvil }), LAGOON_X402_MAX_TOPUP_USD: '100' } });
});
after(async () => {
  await h?.close();
  await anvil?.close();
});

/** A payer holding `usd` test USDC (and no ETH: paying is gasless for it). */
async function payer(usd = 50) {
  const account = evmWallet();
  await anvil.mint(account.address, BigInt(usd * 1_000_000));
  return account;
}

async function walletBalance(account: { address: string; signMessage: (a: { message: string }) => Promise<Hex> }) {
  const res = await fetch(`${h.base}/x402/balance/${account.address}`, { headers: { 'SIGN-IN-WITH-X': await signInHeader(h, account as never) } });
  assert.equal(res.status, 200);
  return (await res.json()).data.balanceUsd as number;
}

const assertCode = (r: { status: number; json: any }, status: number, code: string) => {
  assert.equal(r.status, status, JSON.stringify(r.json));
  assert.equal(r.json.code, code);
};

test('without a payment: 402 with the Base USDC requirement from configuration, in the body and PAYMENT-REQUIRED', async () => {
  const res = await fetch(`${h.base}/x402/top-up`, { method: 'POST' });
  assert.equal(res.status, 402);
  const body = await res.json();
  assert.equal(body.x402Version, 2);
  assert.deepEqual(body.accepts, [
    {
      scheme: 'exact',
      network: 'eip155:8453',
      amount: '5000000',
      asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
      payTo: BASE_PAY_TO,
      maxTimeoutSeconds: 300,
      extra: { name: 'USD Coin', version: '2' },
    },
  ]);
  assert.equal(body.resource.url, 'https://lagoon.test/api/v1/x402/top-up');
  const header = JSON.parse(Buffer.from(res.headers.get('payment-required')!, 'base64').toString());
  assert.deepEqual(header.accepts, body.accepts);
  assert.equal((await topUpRequirements(h, 12.5)).accepts[0].amount, '12500000');
  for (const [amount, code] of [
    ['4.99', 'AMOUNT_TOO_LOW'],
    ['100.01', 'AMOUNT_TOO_HIGH'],
    ['ten', 'INVALID_AMOUNT'],
  ]) {
    const r = await fetch(`${h.base}/x402/top-up?amount=${amount}`, { method: 'POST' });
    assert.equal(r.status, 400);
    assert.equal((await r.json()).code, code);
  }
});

test('a $10 top-up settles on chain, credits the paying wallet once, and answers with PAYMENT-RESPONSE', async () => {
  const account = await payer();
  const before = await anvil.usdcBalance(BASE_PAY_TO);
  const header = await signPayment(evmPayer(account), await topUpRequirements(h, 10));
  const r = await postTopUp(h, header);
  assert.equal(r.status, 200, r.text);
  assert.equal(r.json.success, true);
  assert.deepEqual([r.json.data.walletAddress, r.json.data.amountCredited, r.json.data.newBalance], [account.address.toLowerCase(), 10, 10]);
  const settlement = decodePaymentResponseHeader(r.headers.get('payment-response')!);
  assert.equal(settlement.success, true);
  assert.equal(settlement.network, 'eip155:8453');
  assert.match(settlement.transaction, /^0x[0-9a-f]{64}$/);
  assert.equal(await anvil.usdcBalance(BASE_PAY_TO), before + 10_000_000n);
  assert.equal(await anvil.usdcBalance(account.address), 40_000_000n);

  assertCode(await postTopUp(h, header), 409, 'PAYMENT_ALREADY_CREDITED');
  assert.equal(await walletBalance(account), 10);
});

test('the same payment sent five times at once is settled and credited once', async () => {
  const account = await payer();
  const header = await signPayment(evmPayer(account), await topUpRequirements(h, 7));
  const results = await Promise.all(Array.from({ length: 5 }, () => postTopUp(h, header)));
  const statuses = results.map((r) => r.status).sort();
  assert.deepEqual(statuses, [200, 409, 409, 409, 409], results.map((r) => r.text).join('\n'));
  assert.equal(await walletBalance(account), 7);
  assert.equal(await anvil.usdcBalance(account.address), 43_000_000n);
});

test('client-chosen network, token, recipient or amount is refused before settlement, and nothing moves', async () => {
  const account = await payer();
  const required = await topUpRequirements(h);
  const free = evmPayer(account, { anyAsset: true });
  const cases: [(r: any) => any, number, string][] = [
    [(r) => ({ ...r, network: 'eip155:84532' }), 400, 'UNSUPPORTED_NETWORK'],
    [(r) => ({ ...r, asset: '0x1111111111111111111111111111111111111111' }), 400, 'UNSUPPORTED_TOKEN'],
    [(r) => ({ ...r, payTo: evmWallet().address }), 400, 'INVALID_PAYMENT_RECIPIENT'],
    [(r) => ({ ...r, amount: '4999999' }), 400, 'AMOUNT_TOO_LOW'],
    [(r) => ({ ...r, amount: '100000001' }), 400, 'AMOUNT_TOO_HIGH'],
    [(r) => ({ ...r, maxTimeoutSeconds: 86_400 }), 400, 'INVALID_PAYMENT'],
    [(r) => ({ ...r, extra: { name: 'USD Coin', version: '1' } }), 400, 'INVALID_PAYMENT'],
  ];
  for (const [alter, status, code] of cases) {
    const network = alter({ network: 'eip155:8453' }).network;
    const altered = { ...required, accepts: required.accepts.map(alter) };
    const header = await signPayment(free, altered, (r) => r, network);
    assertCode(await postTopUp(h, header), status, code);
  }
  // Fields edited after signing: the amount is not an integer; an unknown scheme; a v1 payment on another chain.
  const good = await signPayment(evmPayer(account), required);
  assertCode(
    await postTopUp(
      h,
      editHeader(good, (p) => (p.accepted.amount = p.payload.authorization.value = '5000000.5')),
    ),
    400,
    'INVALID_AMOUNT',
  );
  assertCode(
    await postTopUp(
      h,
      editHeader(good, (p) => (p.accepted.scheme = 'upto')),
    ),
    400,
    'UNSUPPORTED_SCHEME',
  );
  assertCode(
    await postTopUp(h, toBase64Json({ x402Version: 1, scheme: 'exact', network: 'base-sepolia', payload: {} }), 'X-PAYMENT'),
    400,
    'UNSUPPORTED_NETWORK',
  );
  for (const bad of [
    '%%%',
    'bm90IGpzb24=',
    toBase64Json({ x402Version: 3 }),
    toBase64Json({ x402Version: 2, accepted: { scheme: 'exact', network: 'eip155:8453' }, payload: {} }),
  ]) {
    assertCode(await postTopUp(h, bad), 400, 'INVALID_PAYMENT_FORMAT');
  }
  assert.equal(await anvil.usdcBalance(account.address), 50_000_000n);
  assert.equal((await h.svc.store.all('SELECT 1 FROM x402_topups WHERE payer = $1', [account.address])).length, 0);
});

test('an expired authorization and an unfunded payer are refused by the facilitator (402), nothing credited', async () => {
  const account = await payer();
  const now = BigInt(Math.floor(Date.now() / 1000));
  const expired = await signAuthorization(account, { to: BASE_PAY_TO, value: 5_000_000n, validBefore: now - 10n });
  const required = await topUpRequirements(h);
  const r = await postTopUp(h, toBase64Json({ x402Version: 2, accepted: required.accepts[0], payload: expired }));
  assertCode(r, 402, 'PAYMENT_VERIFICATION_FAILED');
  assert.match(r.json.details.reason, /valid_before/);
  assert.ok(r.headers.get('payment-required'), 'a refused payment comes back with fresh requirements');

  const broke = evmWallet();
  const unfunded = await postTopUp(h, await signPayment(evmPayer(broke), required));
  assertCode(unfunded, 402, 'PAYMENT_VERIFICATION_FAILED');
  assert.match(unfunded.json.details.reason, /insufficient/);
  assert.equal(await anvil.usdcBalance(account.address), 50_000_000n);
});

test('the high-s twin of a paid authorization is the same payment: refused, credited once', async () => {
  const account = await payer();
  const header = await signPayment(evmPayer(account), await topUpRequirements(h, 5));
  const twin = editHeader(header, (p) => {
    const { r, s, yParity } = parseSignature(p.payload.signature as Hex);
    const n = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
    p.payload.signature = serializeSignature({ r, s: toHex(n - hexToBigInt(s), { size: 32 }), yParity: 1 - yParity });
  });
  assert.equal((await postTopUp(h, header)).status, 200);
  assertCode(await postTopUp(h, twin), 409, 'PAYMENT_ALREADY_CREDITED');
  assert.equal(await walletBalance(account), 5);
});

test('legacy envelopes: the hybrid X-402-Payment (v2 number, v1 shape) and x402 v1 X-PAYMENT', async () => {
  const account = await payer();
  const now = BigInt(Math.floor(Date.now() / 1000));
  const hybrid = await signAuthorization(account, { to: BASE_PAY_TO, value: 10_000_000n, validAfter: now - 600n });
  const r1 = await postTopUp(h, toBase64Json({ x402Version: 2, scheme: 'exact', network: 'base', payload: hybrid }), 'X-402-Payment');
  assert.equal(r1.status, 200, r1.text);
  const v1 = await signAuthorization(account, { to: BASE_PAY_TO, value: 6_000_000n });
  const r2 = await postTopUp(h, toBase64Json({ x402Version: 1, scheme: 'exact', network: 'base', payload: v1 }), 'X-PAYMENT');
  assert.equal(r2.status, 200, r2.text);
  assert.equal(r2.json.data.newBalance, 16);
  assert.equal(decodePaymentResponseHeader(r2.headers.get('x-payment-response')!).success, true);
  // A hybrid payment to someone else is refused before settlement.
  const elsewhere = await signAuthorization(account, { to: evmWallet().address, value: 10_000_000n });
  assertCode(
    await postTopUp(h, toBase64Json({ x402Version: 2, scheme: 'exact', network: 'base', payload: elsewhere }), 'X-402-Payment'),
    400,
    'INVALID_PAYMENT_RECIPIENT',
  );
});

test('a payment someone else put on chain first (front-running) is found there and credited once', async () => {
  const account = await payer();
  const signed = await signAuthorization(account, { to: BASE_PAY_TO, value: 8_000_000n });
  const { r, s, v } = parseSignature(signed.signature);
  const a = signed.authorization;
  await anvil.write({
    address: USDC,
    abi: CONTRACTS.TestUSDC.abi,
    functionName: 'transferWithAuthorization',
    args: [a.from, a.to, BigInt(a.value), BigInt(a.validAfter), BigInt(a.validBefore), a.nonce, Number(v), r, s],
  });
  const required = await topUpRequirements(h);
  const header = toBase64Json({ x402Version: 2, accepted: { ...required.accepts[0], amount: a.value }, payload: signed });
  const first = await postTopUp(h, header);
  assert.equal(first.status, 200, first.text);
  assert.equal(first.json.data.amountCredited, 8);
  assertCode(await postTopUp(h, header), 409, 'PAYMENT_ALREADY_CREDITED');
  assert.equal(await walletBalance(account), 8);
});
