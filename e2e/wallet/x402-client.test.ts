// The published x402 client (@x402/fetch wrapFetchWithPayment), unmodified, against the running server: it pays a
// top-up on Base and on Solana when the server answers 402, and with the SDK's Sign-In-With-X extension it signs in
// on its own when a chat answers 402, after which the chat debits the wallet's balance.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { decodePaymentResponseHeader, wrapFetchWithPayment, x402Client } from '@x402/fetch';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { ExactSvmScheme } from '@x402/svm/exact/client';
import { createSIWxClientExtension, type SIWxSigner } from '@x402/extensions/sign-in-with-x';
import { SOLANA_MAINNET } from '../../lib/wallet/networks.ts';
import { type Anvil, startAnvil } from '../support/chains/anvil.ts';
import { type Solana, solanaKeyPair, startSolana } from '../support/chains/solana.ts';
import { type Harness, startHarness } from '../support/harness.ts';
import { BASE_PAY_TO, evmWallet, solanaWallet, walletEnv } from './clients.ts';

let anvil: Anvil;
let solana: Solana;
let h: Harness;
const solanaPayTo = solanaKeyPair().address;
before(async () => {
  [anvil, solana] = await Promise.all([startAnvil(), startSolana()]);
  await solana.fund(solanaPayTo, 0n);
  // The SDK binds a sign-in challenge to the origin it fetched it from: the harness's own.
  h = await startHarness({ env: walletEnv({ anvil, solana, solanaPayTo }), publicUrl: (origin) => origin });
});
after(async () => {
  await h?.close();
  await Promise.all([anvil?.close(), solana?.close()]);
});

const chat = (pay: typeof fetch, content = '[[tokens:20]]') =>
  pay(`${h.base}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'scripted-model', messages: [{ role: 'user', content }] }),
  });

test('EVM: wrapFetchWithPayment pays a $10 top-up, then signs in by itself and chats on the wallet balance', async () => {
  const account = evmWallet();
  await anvil.mint(account.address, 25_000_000n);
  // The client's default cap is $1 per payment; a top-up starts at $5.
  const client = new x402Client().register('eip155:8453', new ExactEvmScheme(account)).setSpendControls({ maxAmountPerPayment: '$100' });
  client.registerExtension(createSIWxClientExtension({ signers: [account] }));
  const pay = wrapFetchWithPayment(fetch, client);

  const topUp = await pay(`${h.base}/x402/top-up?amount=10`, { method: 'POST' });
  assert.equal(topUp.status, 200, await topUp.clone().text());
  assert.equal((await topUp.json()).data.amountCredited, 10);
  const settlement = decodePaymentResponseHeader(topUp.headers.get('payment-response')!);
  assert.deepEqual([settlement.success, settlement.network], [true, 'eip155:8453']);
  assert.equal(await anvil.usdcBalance(BASE_PAY_TO), 10_000_000n);

  const first = await chat(pay);
  assert.equal(first.status, 200, await first.clone().text());
  const cost = (await first.json()).cost.usd;
  assert.equal(first.headers.get('x-balance-remaining'), (10 - cost).toFixed(6));
  const second = await chat(pay);
  assert.equal(second.status, 200);
  await h.svc.ledger.drain();

  // The balance endpoint wants the same wallet's sign-in; the client provides it on the 402.
  const balance = await pay(`${h.base}/x402/balance/${account.address}`);
  assert.equal(balance.status, 200);
  const { data } = await balance.json();
  assert.ok(Math.abs(data.balanceUsd - (10 - 2 * cost)) < 1e-9, `${data.balanceUsd}`);
});

test('Solana: wrapFetchWithPayment pays a $5 top-up and the wallet chats', async () => {
  const signer = await solanaWallet();
  await solana.fund(signer.address, 9_000_000n);
  const client = new x402Client()
    .register(SOLANA_MAINNET.network, new ExactSvmScheme(signer, { rpcUrl: solana.rpcUrl }))
    .setSpendControls({ maxAmountPerPayment: '$100' });
  // A kit KeyPairSigner is a SIWX Solana signer (signMessages); the SDK's types name another kit version's.
  client.registerExtension(createSIWxClientExtension({ signers: [signer as unknown as SIWxSigner] }));
  const pay = wrapFetchWithPayment(fetch, client);
  const topUp = await pay(`${h.base}/x402/top-up`, { method: 'POST' });
  assert.equal(topUp.status, 200, await topUp.clone().text());
  assert.equal((await topUp.json()).data.newBalance, 5);
  assert.equal(await solana.usdcBalance(signer.address), 4_000_000n);
  const r = await chat(pay);
  assert.equal(r.status, 200, await r.clone().text());
  assert.ok(Number(r.headers.get('x-balance-remaining')) < 5);
});
