// Normalising payment headers: every envelope becomes a v2 payload whose `accepted` is our own offer, and the payment
// key depends only on what the chain allows once (never on signature bytes).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig } from '../config.ts';
import { getAddress } from 'viem';
import { readPayment } from './payment.ts';

const PAY_TO = '0x2670B922ef37C7Df47158725C0CC407b5382293F';
const cfg = loadConfig({
  LAGOON_X402_BASE_PAY_TO: PAY_TO,
  LAGOON_X402_FACILITATOR_URL: 'https://facilitator.internal',
  LAGOON_X402_MAX_TOPUP_USD: '50',
}).wallet;
const noFeePayer = async () => undefined;
const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64');
const FROM = '0x3Ad8B7D8e6f2f1aC0a8b5e0C2A7D54d1A08b0E4f';
const NONCE = `0x${'ab'.repeat(32)}`;
const authorization = (value: string) => ({ from: FROM, to: PAY_TO, value, validAfter: '0', validBefore: '99999999999', nonce: NONCE });
const offer = (amount: string) => ({
  scheme: 'exact',
  network: 'eip155:8453',
  amount,
  asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
  payTo: PAY_TO,
  maxTimeoutSeconds: 300,
  extra: { name: 'USD Coin', version: '2' },
});

test('the hybrid envelope (x402Version 2, v1 shape, network "base") becomes a v2 payload with our offer', async () => {
  const p = await readPayment(
    b64({ x402Version: 2, scheme: 'exact', network: 'base', payload: { signature: '0x01', authorization: authorization('10000000') } }),
    cfg,
    noFeePayer,
  );
  assert.deepEqual(p.requirements, offer('10000000'));
  assert.deepEqual(p.payload.accepted, p.requirements);
  assert.equal(p.amount, 10_000_000);
  assert.equal(p.payer, FROM);
  assert.equal(p.paymentKey, `eip155:8453:0x833589fcd6edb6e08f4c7c32d4f71b54bda02913:${FROM.toLowerCase()}:${NONCE}`);
});

test('the payment key ignores the signature: two signatures of one authorization are one payment', async () => {
  const one = await readPayment(
    b64({ x402Version: 2, accepted: offer('5000000'), payload: { signature: '0x01', authorization: authorization('5000000') } }),
    cfg,
    noFeePayer,
  );
  const two = await readPayment(
    b64({ x402Version: 1, scheme: 'exact', network: 'base', payload: { signature: '0x02', authorization: authorization('5000000') } }),
    cfg,
    noFeePayer,
  );
  assert.equal(one.paymentKey, two.paymentKey);
});

test('accepted must be our offer in every field but the amount, and match the authorization', async () => {
  const send = (accepted: unknown, value = '5000000') =>
    readPayment(b64({ x402Version: 2, accepted, payload: { signature: '0x01', authorization: authorization(value) } }), cfg, noFeePayer);
  await assert.doesNotReject(send(offer('7000000'), '7000000'));
  await assert.rejects(send(offer('7000000'), '5000000'), { code: 'INVALID_PAYMENT' });
  await assert.rejects(send({ ...offer('5000000'), extra: { name: 'USD Coin', version: '2', assetTransferMethod: 'permit2' } }), { code: 'INVALID_PAYMENT' });
  await assert.rejects(send(offer('50000001'), '50000001'), { code: 'AMOUNT_TOO_HIGH' });
  await assert.rejects(send(offer('-5'), '-5'), { code: 'INVALID_AMOUNT' });
  await assert.rejects(send({ ...offer('5000000'), network: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp' }), { code: 'UNSUPPORTED_NETWORK' });
  // Permit2 payloads carry no EIP-3009 authorization: refused, since only those are keyed on chain.
  await assert.rejects(
    readPayment(b64({ x402Version: 2, accepted: offer('5000000'), payload: { signature: '0x01', permit2Authorization: {} } }), cfg, noFeePayer),
    { code: 'INVALID_PAYMENT_FORMAT' },
  );
});

test("x402's own upto: a Permit2 authorization of the cap to the upto proxy, for our recipient and facilitator", async () => {
  const FACILITATOR = getAddress('0x70997970c51812dc3a010c7d01b54abb8dcf1ac8');
  const uptoFacilitator = async () => FACILITATOR;
  const terms = { schemes: ['upto'] as const, min: 1, max: 1_000_000, what: 'payment' };
  const accepted = {
    ...offer('5000'),
    scheme: 'upto',
    extra: { name: 'USD Coin', version: '2', assetTransferMethod: 'permit2', facilitatorAddress: FACILITATOR },
  };
  const auth = (over: Record<string, unknown> = {}, witness: Record<string, unknown> = {}) => ({
    from: FROM,
    permitted: { token: accepted.asset, amount: '5000' },
    spender: '0x4020A4f3b7b90ccA423B9fabCc0CE57C6C240002',
    nonce: '123456789',
    deadline: '99999999999',
    witness: { to: PAY_TO, facilitator: FACILITATOR, validAfter: '0', ...witness },
    ...over,
  });
  const send = (a: unknown, acc: unknown = accepted) =>
    readPayment(b64({ x402Version: 2, accepted: acc, payload: { signature: '0x01', permit2Authorization: a } }), cfg, noFeePayer, terms, uptoFacilitator);
  const p = await send(auth());
  assert.deepEqual([p.scheme, p.settledAfterWork, p.amount, p.payer], ['upto', true, 5000, FROM]);
  assert.equal(p.paymentKey, `eip155:8453:permit2:${FROM.toLowerCase()}:123456789`);
  assert.deepEqual(p.requirements, accepted);
  await assert.rejects(send(auth({ spender: PAY_TO })), { code: 'INVALID_PAYMENT' });
  await assert.rejects(send(auth({}, { to: FROM })), { code: 'INVALID_PAYMENT_RECIPIENT' });
  await assert.rejects(send(auth({}, { facilitator: PAY_TO })), { code: 'INVALID_PAYMENT' });
  await assert.rejects(send(auth({ permitted: { token: PAY_TO, amount: '5000' } })), { code: 'UNSUPPORTED_TOKEN' });
  await assert.rejects(send(auth(), { ...accepted, amount: '4000' }), { code: 'INVALID_PAYMENT' });
  await assert.rejects(send(auth(), { ...accepted, extra: { name: 'USD Coin', version: '2' } }), { code: 'INVALID_PAYMENT' });
  await assert.rejects(send(auth({ nonce: '0x12' })), { code: 'INVALID_PAYMENT_FORMAT' });
  // An EIP-3009 payload is not x402's upto where the contracts are used.
  await assert.rejects(
    readPayment(
      b64({ x402Version: 2, accepted, payload: { signature: '0x01', authorization: authorization('5000') } }),
      cfg,
      noFeePayer,
      terms,
      uptoFacilitator,
    ),
    { code: 'INVALID_PAYMENT_FORMAT' },
  );
});
