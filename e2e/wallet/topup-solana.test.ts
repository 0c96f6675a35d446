// POST /x402/top-up with USDC on Solana (LiteSVM behind a loopback JSON-RPC shim, USDC at the mainnet mint address),
// paid by the published x402 Solana client; the fee payer is the in-process facilitator's key.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { x402Client } from '@x402/core/client';
import { decodePaymentResponseHeader } from '@x402/core/http';
import { ExactSvmScheme } from '@x402/svm/exact/client';
import type { KeyPairSigner } from '@solana/kit';
import { SOLANA_MAINNET } from '../../lib/wallet/networks.ts';
import { type Solana, solanaKeyPair, startSolana } from '../support/chains/solana.ts';
import { type Harness, startHarness } from '../support/harness.ts';
import { editHeader, postTopUp, signInHeader, signPayment, solanaWallet, topUpRequirements, walletEnv } from './clients.ts';

let solana: Solana;
let h: Harness;
const payTo = solanaKeyPair().address;
before(async () => {
  solana = await startSolana();
  await solana.fund(payTo, 0n); // the recipient's token account must exist: x402 clients do not create it
  h = await startHarness({ env: walletEnv({ solana, solanaPayTo: payTo }) });
});
after(async () => {
  await h?.close();
  await solana?.close();
});

function solanaPayer(signer: KeyPairSigner): x402Client {
  return new x402Client()
    .register(SOLANA_MAINNET.network, new ExactSvmScheme(signer, { rpcUrl: solana.rpcUrl }))
    .setSpendControls({ maxAmountPerPayment: '$10000' });
}

async function fundedWallet(usd = 20) {
  const signer = await solanaWallet();
  await solana.fund(signer.address, BigInt(usd * 1_000_000));
  return signer;
}

const assertCode = (r: { status: number; json: any }, status: number, code: string) => {
  assert.equal(r.status, status, JSON.stringify(r.json));
  assert.equal(r.json.code, code);
};

test('the 402 offers USDC on Solana mainnet with the facilitator as fee payer', async () => {
  const required = await topUpRequirements(h);
  assert.deepEqual(required.accepts, [
    {
      scheme: 'exact',
      network: SOLANA_MAINNET.network,
      amount: '5000000',
      asset: SOLANA_MAINNET.usdc,
      payTo,
      maxTimeoutSeconds: 300,
      extra: { feePayer: solana.feePayer.address },
    },
  ]);
});

test('a $7 top-up settles on the Solana VM, credits the paying wallet once; the payer needs no SOL', async () => {
  const signer = await fundedWallet();
  const header = await signPayment(solanaPayer(signer), await topUpRequirements(h, 7), undefined, SOLANA_MAINNET.network);
  const r = await postTopUp(h, header);
  assert.equal(r.status, 200, r.text);
  assert.deepEqual([r.json.data.walletAddress, r.json.data.amountCredited, r.json.data.newBalance], [signer.address, 7, 7]);
  const settlement = decodePaymentResponseHeader(r.headers.get('payment-response')!);
  assert.equal(settlement.success, true);
  assert.equal(await solana.usdcBalance(payTo), 7_000_000n);
  assert.equal(await solana.usdcBalance(signer.address), 13_000_000n);
  assert.equal(solana.svm.getBalance(signer.address as never) ?? 0n, 0n);

  assertCode(await postTopUp(h, header), 409, 'PAYMENT_ALREADY_CREDITED');
  const balance = await fetch(`${h.base}/x402/balance/${signer.address}`, { headers: { 'SIGN-IN-WITH-X': await signInHeader(h, signer) } });
  assert.equal((await balance.json()).data.balanceUsd, 7);
});

test('concurrent replays of one Solana payment credit it once', async () => {
  const signer = await fundedWallet();
  const header = await signPayment(solanaPayer(signer), await topUpRequirements(h, 5), undefined, SOLANA_MAINNET.network);
  const statuses = (await Promise.all(Array.from({ length: 4 }, () => postTopUp(h, header)))).map((r) => r.status).sort();
  assert.deepEqual(statuses, [200, 409, 409, 409]);
  assert.equal(await solana.usdcBalance(signer.address), 15_000_000n);
});

test('a foreign fee payer, recipient, mint, devnet or a short amount is refused before settlement', async () => {
  const signer = await fundedWallet();
  const required = await topUpRequirements(h);
  const client = new x402Client().register('solana:*', new ExactSvmScheme(signer, { rpcUrl: solana.rpcUrl })).setSpendControls(false);
  const other = solanaKeyPair().address;
  await solana.fund(other, 0n);
  const cases: [(r: any) => any, string][] = [
    [(r) => ({ ...r, extra: { feePayer: other } }), 'INVALID_PAYMENT'],
    [(r) => ({ ...r, payTo: other }), 'INVALID_PAYMENT_RECIPIENT'],
    [(r) => ({ ...r, amount: '4999999' }), 'AMOUNT_TOO_LOW'],
    [(r) => ({ ...r, network: 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1' }), 'UNSUPPORTED_NETWORK'],
  ];
  for (const [alter, code] of cases) {
    const altered = { ...required, accepts: required.accepts.map(alter) };
    const header = await signPayment(client, altered, (r) => r, altered.accepts[0].network);
    assertCode(await postTopUp(h, header), 400, code);
  }
  const good = await signPayment(solanaPayer(signer), required, undefined, SOLANA_MAINNET.network);
  assertCode(
    await postTopUp(
      h,
      editHeader(good, (p) => (p.accepted.asset = other)),
    ),
    400,
    'UNSUPPORTED_TOKEN',
  );
  // The amount named in `accepted` must be what the transaction transfers: the facilitator checks it (402).
  assertCode(
    await postTopUp(
      h,
      editHeader(good, (p) => (p.accepted.amount = '9000000')),
    ),
    402,
    'PAYMENT_VERIFICATION_FAILED',
  );
  assertCode(
    await postTopUp(
      h,
      editHeader(good, (p) => (p.payload.transaction = 'AAAA')),
    ),
    400,
    'INVALID_PAYMENT_FORMAT',
  );
  assert.equal(await solana.usdcBalance(signer.address), 20_000_000n);
});

test('a payment whose blockhash expired is refused and nothing moves', async () => {
  const signer = await fundedWallet();
  const header = await signPayment(solanaPayer(signer), await topUpRequirements(h), undefined, SOLANA_MAINNET.network);
  solana.svm.expireBlockhash();
  const r = await postTopUp(h, header);
  assert.equal(r.status, 402, r.text);
  assert.equal(await solana.usdcBalance(signer.address), 20_000_000n);
});
