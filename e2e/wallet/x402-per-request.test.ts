// x402 per request (LAGOON_X402_PER_REQUEST=1) on the local chains: a wallet with no account pays for one image
// (`exact`, on Base and on Solana) and one chat (`upto`, a cap) through the published x402 client, unmodified for
// `exact`; each answer carries the settlement, the wallet's statement shows the payment and the charge, and the part
// of an `upto` cap the chat did not use is the wallet's balance. A replayed payment pays nothing twice; a payment for
// the wrong amount, or one that cannot be verified, is a 402 that says so and moves no money. `upto` here is the
// fallback for networks without x402's upto contracts (LAGOON_X402_UPTO_NETWORKS=none): the exact payload for the cap;
// x402-upto.test.ts pays x402's own upto on Base.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { decodePaymentRequiredHeader } from '@x402/core/http';
import { decodePaymentResponseHeader, wrapFetchWithPayment, x402Client } from '@x402/fetch';
import type { PaymentRequirements, SchemeNetworkClient } from '@x402/core/types';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { ExactSvmScheme } from '@x402/svm/exact/client';
import type { LocalAccount } from 'viem';
import { SOLANA_MAINNET } from '../../lib/wallet/networks.ts';
import { type Anvil, startAnvil } from '../support/chains/anvil.ts';
import { type Solana, solanaKeyPair, startSolana } from '../support/chains/solana.ts';
import { type Harness, startHarness } from '../support/harness.ts';
import { BASE_PAY_TO, evmWallet, type SignInSigner, signInHeader, signPayment, solanaWallet, walletEnv } from './clients.ts';

const free = { input_usd: 0, output_usd: 0, input_diem: 0, output_diem: 0 };
let anvil: Anvil;
let solana: Solana;
let h: Harness;
const solanaPayTo = solanaKeyPair().address;

before(async () => {
  [anvil, solana] = await Promise.all([startAnvil(), startSolana()]);
  await solana.fund(solanaPayTo, 0n);
  h = await startHarness({
    env: {
      ...walletEnv({ anvil, solana, solanaPayTo }),
      LAGOON_X402_PER_REQUEST: '1',
      LAGOON_X402_PER_REQUEST_MAX_USD: '1',
      LAGOON_X402_UPTO_NETWORKS: 'none',
    },
    models: [
      {
        id: 'demo-image',
        name: 'Demo image',
        type: 'image',
        tier: 'XS',
        // 0.01 per image and 0.001 per step: 0.018 USD at the default 8 steps.
        pricing: { ...free, per_image_usd: 0.01, per_image_step_usd: 0.001 },
        context_length: 1500,
        traits: ['default'],
        image: { max_side: 2048, aspect_ratios: ['1:1'], resolutions: ['1K'], steps: { default: 8, max: 30 } },
        engine: { kind: 'demo-image' },
      },
    ],
  });
});
after(async () => {
  await h?.close();
  await Promise.all([anvil?.close(), solana?.close()]);
});

const IMAGE_PRICE = 18_000;

const image = (pay: typeof fetch, headers: Record<string, string> = {}) =>
  pay(`${h.base}/image/generate`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ model: 'demo-image', prompt: 'a lighthouse', width: 512, height: 512 }),
  });

const chatBody = JSON.stringify({ model: 'scripted-model', max_tokens: 200, messages: [{ role: 'user', content: '[[tokens:20]]' }] });
const chat = (pay: typeof fetch, headers: Record<string, string> = {}) =>
  pay(`${h.base}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: chatBody });

/**
 * The payer's side of our `upto`: the cap authorised with the exact scheme's payload (an EIP-3009 authorization),
 * signed by the published exact client. lib/wallet/per-request.ts says why `upto` is signed this way here.
 */
const uptoByExact = (exact: SchemeNetworkClient): SchemeNetworkClient => ({
  scheme: 'upto',
  // USDC is the exact client's default asset; the spend controls ask the scheme which assets those are.
  findDefaultAsset: exact.findDefaultAsset?.bind(exact),
  createPaymentPayload: (version: number, r: PaymentRequirements, c?: never) => exact.createPaymentPayload(version, { ...r, scheme: 'exact' }, c),
});

async function statement(signer: SignInSigner) {
  await h.svc.ledger.drain();
  const res = await fetch(`${h.base}/x402/transactions/${signer.address}`, { headers: { 'SIGN-IN-WITH-X': await signInHeader(h, signer as never) } });
  assert.equal(res.status, 200, await res.clone().text());
  return (await res.json()).data as {
    currentBalance: number;
    transactions: { type: string; amount: number; requestId: string | null; transaction: string | null }[];
  };
}

async function paidUsd(account: LocalAccount, usd: number) {
  await anvil.mint(account.address, BigInt(Math.round(usd * 1_000_000)));
}

test('an image without credentials: 402 naming its exact price on both rails, and nothing runs', async () => {
  const res = await image(fetch);
  assert.equal(res.status, 402);
  const body = await res.json();
  assert.deepEqual(
    body.accepts.map((a: PaymentRequirements) => [a.scheme, a.network, a.amount, a.payTo]),
    [
      ['exact', 'eip155:8453', String(IMAGE_PRICE), BASE_PAY_TO],
      ['exact', SOLANA_MAINNET.network, String(IMAGE_PRICE), solanaPayTo],
    ],
  );
  assert.deepEqual(decodePaymentRequiredHeader(res.headers.get('payment-required')!).accepts, body.accepts);
  assert.match(body.resource.url, /\/api\/v1\/image\/generate$/);
  const usage = await h.svc.store.get<{ n: number }>("SELECT COUNT(*) AS n FROM usage WHERE model_id = 'demo-image'");
  assert.equal(Number(usage?.n), 0);
});

test('EVM: a wallet with no account pays for one image (exact); the answer carries the settlement; the statement shows both', async () => {
  const account = evmWallet();
  await paidUsd(account, 1);
  const before = await anvil.usdcBalance(BASE_PAY_TO);
  const client = new x402Client().register('eip155:8453', new ExactEvmScheme(account));
  const res = await image(wrapFetchWithPayment(fetch, client));
  assert.equal(res.status, 200, await res.clone().text());
  assert.ok((await res.json()).images.length === 1);
  const settlement = decodePaymentResponseHeader(res.headers.get('payment-response')!);
  assert.deepEqual([settlement.success, settlement.network, settlement.payer?.toLowerCase()], [true, 'eip155:8453', account.address.toLowerCase()]);
  assert.equal((await anvil.usdcBalance(BASE_PAY_TO)) - before, BigInt(IMAGE_PRICE));
  assert.equal(await anvil.usdcBalance(account.address), 1_000_000n - BigInt(IMAGE_PRICE));

  const s = await statement(account);
  assert.equal(s.currentBalance, 0);
  const [charge, payment] = s.transactions;
  assert.deepEqual([charge.type, charge.amount, payment.type, payment.amount], ['CHARGE', -0.018, 'TOP_UP', 0.018]);
  assert.equal(payment.requestId, charge.requestId, 'the payment names the request it paid for');
  assert.equal(payment.transaction, settlement.transaction);
});

test('Solana: a wallet with no account pays for one image (exact)', async () => {
  const signer = await solanaWallet();
  await solana.fund(signer.address, 100_000n);
  const client = new x402Client().register(SOLANA_MAINNET.network, new ExactSvmScheme(signer, { rpcUrl: solana.rpcUrl }));
  const res = await image(wrapFetchWithPayment(fetch, client));
  assert.equal(res.status, 200, await res.clone().text());
  const settlement = decodePaymentResponseHeader(res.headers.get('payment-response')!);
  assert.deepEqual([settlement.success, settlement.network], [true, SOLANA_MAINNET.network]);
  assert.equal(await solana.usdcBalance(solanaPayTo), BigInt(IMAGE_PRICE));
  assert.equal(await solana.usdcBalance(signer.address), 100_000n - BigInt(IMAGE_PRICE));
  const s = await statement(signer);
  assert.deepEqual(
    s.transactions.map((t) => [t.type, t.amount]),
    [
      ['CHARGE', -0.018],
      ['TOP_UP', 0.018],
    ],
  );
  assert.equal(s.currentBalance, 0);
});

test('EVM: a chat paid upto a cap is charged what it used; the rest is the wallet’s balance; a replay pays nothing twice', async () => {
  const unpaid = await chat(fetch);
  assert.equal(unpaid.status, 402);
  const required = decodePaymentRequiredHeader(unpaid.headers.get('payment-required')!);
  const offer = required.accepts.find((a) => a.network === 'eip155:8453')!;
  assert.equal(offer.scheme, 'upto');
  const cap = Number(offer.amount);
  // The cap: the prompt and all 200 completion tokens at the model's prices ($1 and $2 per million).
  assert.ok(cap > 400 && cap < 1000, `cap ${cap}`);

  const account = evmWallet();
  await paidUsd(account, 1);
  const payTo = await anvil.usdcBalance(BASE_PAY_TO);
  const client = new x402Client().register('eip155:8453', uptoByExact(new ExactEvmScheme(account)));
  const header = await signPayment(client, required);
  const res = await chat(fetch, { 'PAYMENT-SIGNATURE': header });
  assert.equal(res.status, 200, await res.clone().text());
  const body = await res.json();
  const used = Math.round(body.cost.usd * 1_000_000);
  assert.ok(used > 0 && used < cap, `used ${used} of ${cap}`);
  const settlement = decodePaymentResponseHeader(res.headers.get('payment-response')!);
  assert.equal(settlement.success, true);
  assert.equal((await anvil.usdcBalance(BASE_PAY_TO)) - payTo, BigInt(cap));

  const s = await statement(account);
  assert.equal(Math.round(s.currentBalance * 1e6), cap - used, 'the unused part of the cap is the wallet’s');
  assert.deepEqual(
    s.transactions.map((t) => [t.type, Math.round(t.amount * 1e6)]),
    [
      ['CHARGE', -used],
      ['TOP_UP', cap],
    ],
  );

  // The same payment again, on its own and with its retry's x402 names: refused, nothing runs or moves.
  for (const name of ['PAYMENT-SIGNATURE', 'X-PAYMENT']) {
    const again = await chat(fetch, { [name]: header });
    assert.equal(again.status, 409, await again.clone().text());
    assert.equal((await again.json()).code, 'PAYMENT_ALREADY_CREDITED');
  }
  assert.equal((await anvil.usdcBalance(BASE_PAY_TO)) - payTo, BigInt(cap));
  assert.equal((await statement(account)).transactions.length, 2);
});

test('a payment for the wrong amount, or one that cannot be verified, is a 402 that says so; no money moves', async () => {
  const account = evmWallet();
  await paidUsd(account, 1);
  const payTo = await anvil.usdcBalance(BASE_PAY_TO);
  const required = decodePaymentRequiredHeader((await image(fetch)).headers.get('payment-required')!);
  const client = new x402Client().register('eip155:8453', new ExactEvmScheme(account));

  const short = await signPayment(client, required, (r) => ({ ...r, amount: String(IMAGE_PRICE - 1) }));
  const r1 = await image(fetch, { 'PAYMENT-SIGNATURE': short });
  assert.equal(r1.status, 402);
  const b1 = await r1.json();
  assert.equal(b1.code, 'PAYMENT_AMOUNT_MISMATCH');
  assert.match(b1.error, /0\.017999 USD.*0\.018 USD/);
  assert.equal(b1.accepts[0].amount, String(IMAGE_PRICE), 'the 402 says what to sign instead');

  // A chat's cap must be the cap: a payment under it is not taken as `upto`, nor an image's price as `upto`.
  const wrongScheme = await signPayment(new x402Client().register('eip155:8453', uptoByExact(new ExactEvmScheme(account))), {
    ...required,
    accepts: required.accepts.map((a) => ({ ...a, scheme: 'upto' })),
  });
  const r2 = await image(fetch, { 'PAYMENT-SIGNATURE': wrongScheme });
  assert.deepEqual([r2.status, (await r2.json()).code], [400, 'UNSUPPORTED_SCHEME']);

  // A payer without the funds: the facilitator refuses it at verification.
  const broke = evmWallet();
  const unfunded = await signPayment(new x402Client().register('eip155:8453', new ExactEvmScheme(broke)), required);
  const r3 = await image(fetch, { 'PAYMENT-SIGNATURE': unfunded });
  assert.equal(r3.status, 402);
  const b3 = await r3.json();
  assert.equal(b3.code, 'PAYMENT_VERIFICATION_FAILED');
  assert.match(b3.error, /insufficient/i);

  assert.equal(await anvil.usdcBalance(BASE_PAY_TO), payTo);
  assert.equal(await anvil.usdcBalance(account.address), 1_000_000n);
  // A payment header beside a bearer key is still refused: per request is for callers without credentials.
  const { key } = await h.newAccount({ usd: 1 });
  const r4 = await image(fetch, { authorization: `Bearer ${key}`, 'PAYMENT-SIGNATURE': short });
  assert.deepEqual([r4.status, (await r4.json()).code], [400, 'PAYMENT_HEADER_NOT_ACCEPTED']);
});
