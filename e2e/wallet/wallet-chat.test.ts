// Wallet users on the inference API: the four 402 variants, X-Balance-Remaining, the wallet's balance and statement,
// challenges, per-wallet rate limits, and who may read which wallet.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { grantUsd } from '../../lib/billing/ledger.ts';
import { SOLANA_MAINNET } from '../../lib/wallet/networks.ts';
import { ensureWallet } from '../../lib/wallet/wallets.ts';
import { type Anvil, startAnvil } from '../support/chains/anvil.ts';
import { type Solana, solanaKeyPair, startSolana } from '../support/chains/solana.ts';
import { type Harness, post, sseEvents, startHarness } from '../support/harness.ts';
import { BASE_PAY_TO, evmPayer, evmWallet, postTopUp, signInHeader, signPayment, walletChat, walletEnv } from './clients.ts';

let anvil: Anvil;
let solana: Solana;
let h: Harness;
const solanaPayTo = solanaKeyPair().address;
before(async () => {
  [anvil, solana] = await Promise.all([startAnvil(), startSolana()]);
  await solana.fund(solanaPayTo, 0n);
  // Wallets get rate limits like keys: 3 requests per window on the scripted models' tier here.
  h = await startHarness({
    env: walletEnv({ anvil, solana, solanaPayTo }),
    limits: { windowSeconds: 60, text: { default: { XS: { rpm: 3, tpm: 1_000_000 } } } },
  });
});
after(async () => {
  await h?.close();
  await Promise.all([anvil?.close(), solana?.close()]);
});

const decode = (header: string | null) => JSON.parse(Buffer.from(header!, 'base64').toString('utf8'));

async function fundedWallet(usd: number) {
  const account = evmWallet();
  const w = await ensureWallet(h.svc.store, 'eip155', account.address);
  if (usd > 0) await grantUsd(h.svc.store, w.accountId, Math.round(usd * 1e6));
  return { account, wallet: w };
}

test('402 variant 2: an unauthenticated chat gets x402 discovery (Base and Solana accepts, a sign-in-with-x challenge)', async () => {
  const r = await post(h, '/chat/completions', undefined, { model: 'scripted-model', messages: [{ role: 'user', content: 'hi' }] });
  assert.equal(r.status, 402);
  assert.equal(r.json.x402Version, 2);
  assert.equal(r.json.code, 'AUTHENTICATION_REQUIRED');
  assert.equal(r.json.resource.url, 'https://lagoon.test/api/v1/chat/completions');
  assert.deepEqual(
    r.json.accepts.map((a: any) => [a.network, a.asset, a.payTo]),
    [
      ['eip155:8453', '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', BASE_PAY_TO],
      [SOLANA_MAINNET.network, SOLANA_MAINNET.usdc, solanaPayTo],
    ],
  );
  const siwx = r.json.extensions['sign-in-with-x'];
  assert.equal(siwx.info.domain, 'lagoon.test');
  assert.match(siwx.info.nonce, /^[0-9a-f]{32}$/);
  assert.deepEqual(
    siwx.supportedChains.map((c: any) => c.type),
    ['eip191', 'ed25519'],
  );
  const header = decode(r.headers.get('payment-required'));
  assert.deepEqual([header.x402Version, header.accepts, header.extensions], [2, r.json.accepts, r.json.extensions]);
  // A present but unusable bearer credential is still a 401, and payment headers do not belong here.
  assert.equal((await post(h, '/chat/completions', 'lgn_inf_unknown', {})).status, 401);
  const paid = await post(h, '/chat/completions', undefined, {}, { 'PAYMENT-SIGNATURE': 'e30=' });
  assert.deepEqual([paid.status, paid.json.code], [400, 'PAYMENT_HEADER_NOT_ACCEPTED']);
});

test('402 variant 1: an API key without credit gets the standard INSUFFICIENT_BALANCE body', async () => {
  const { key } = await h.newAccount({ usd: 0 });
  const r = await post(h, '/chat/completions', key, { model: 'scripted-model', messages: [{ role: 'user', content: 'hi' }] });
  assert.deepEqual([r.status, r.json.code], [402, 'INSUFFICIENT_BALANCE']);
  assert.equal(r.json.x402Version, undefined);
  assert.equal(r.headers.get('payment-required'), null);
});

test('402 variants 3 and 4: a signed-in wallet without credit learns how to top up, with a fresh challenge it can sign', async () => {
  const { account } = await fundedWallet(0);
  const r = await walletChat(h, await signInHeader(h, account));
  assert.equal(r.status, 402, r.text);
  assert.equal(r.json.code, 'PAYMENT_REQUIRED');
  assert.equal(r.json.currentBalanceUsd, 0);
  assert.deepEqual(r.json.supportedTokens, ['USDC']);
  assert.deepEqual(r.json.supportedChains, ['base', 'solana']);
  assert.equal(r.json.topUpInstructions.endpoint, 'POST /api/v1/x402/top-up');
  // The fields deployed clients read: one rail's receiver, token and network (Base's, as the public API describes).
  assert.deepEqual(
    [r.json.topUpInstructions.receiverWallet, r.json.topUpInstructions.tokenAddress, r.json.topUpInstructions.network],
    [BASE_PAY_TO, '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', 'eip155:8453'],
  );
  assert.ok(r.json.topUpInstructions.step1 && r.json.topUpInstructions.step2 && r.json.topUpInstructions.step3);
  assert.match(r.json.siwxChallenge.info.nonce, /^[0-9a-f]{32}$/);
  // Variant 4: the PAYMENT-REQUIRED header carries what to sign, for the top-up endpoint.
  const required = decode(r.headers.get('payment-required'));
  assert.equal(required.resource.url, 'https://lagoon.test/api/v1/x402/top-up');
  assert.equal(required.accepts.length, 2);

  // Top up on Base with what the 402 said, then sign the 402's own challenge: the chat now goes through.
  await anvil.mint(account.address, 20_000_000n);
  const topUp = await postTopUp(h, await signPayment(evmPayer(account), required));
  assert.equal(topUp.status, 200, topUp.text);
  const info = r.json.siwxChallenge.info;
  const { createSIWxPayload, encodeSIWxHeader } = await import('@x402/extensions/sign-in-with-x');
  const header = encodeSIWxHeader(await createSIWxPayload({ ...info, chainId: 'eip155:8453', type: 'eip191' }, account, 'https://lagoon.test'));
  const ok = await walletChat(h, header);
  assert.equal(ok.status, 200, ok.text);
  assert.equal(ok.headers.get('x-balance-remaining'), (10 - ok.json.cost.usd).toFixed(6));
});

test('X-Balance-Remaining: after the charge on JSON answers; after the hold on streams; the statement matches', async () => {
  const { account } = await fundedWallet(2);
  const json = await walletChat(h, await signInHeader(h, account), { max_tokens: 50, messages: [{ role: 'user', content: '[[tokens:10]]' }] });
  assert.equal(json.status, 200);
  const afterJson = 2 - json.json.cost.usd;
  assert.equal(json.headers.get('x-balance-remaining'), afterJson.toFixed(6));
  await h.svc.ledger.drain();
  const stream = await walletChat(h, await signInHeader(h, account), { stream: true, max_tokens: 50, messages: [{ role: 'user', content: '[[tokens:10]]' }] });
  assert.equal(stream.status, 200);
  const remainingHeader = Number(stream.headers.get('x-balance-remaining'));
  const streamCost = sseEvents(stream.text).find((e) => e !== '[DONE]' && e.cost)!.cost.usd;
  assert.ok(remainingHeader <= afterJson - streamCost + 1e-9, 'a stream reports at most what can be left');
  await h.svc.ledger.drain();

  const res = await fetch(`${h.base}/x402/transactions/${account.address}`, { headers: { 'SIGN-IN-WITH-X': await signInHeader(h, account) } });
  assert.equal(res.status, 200);
  const { data } = await res.json();
  assert.deepEqual(
    data.transactions.map((t: any) => t.type),
    ['CHARGE', 'CHARGE', 'GRANT'],
  );
  assert.equal(data.transactions[2].balanceAfter, 2);
  assert.equal(data.transactions[0].balanceAfter, data.currentBalance);
  assert.ok(Math.abs(data.currentBalance - (2 - json.json.cost.usd - streamCost)) < 1e-9);
  const page = await (
    await fetch(`${h.base}/x402/transactions/${account.address}?limit=1&offset=1`, { headers: { 'SIGN-IN-WITH-X': await signInHeader(h, account) } })
  ).json();
  assert.deepEqual(
    [page.data.transactions.length, page.data.transactions[0].balanceAfter, page.data.pagination.hasMore],
    [1, data.transactions[1].balanceAfter, true],
  );
});

test('balance and statement: only for the signed-in wallet; 402 without SIWX, 403 for another wallet, 400 for a bad address', async () => {
  const { account } = await fundedWallet(3);
  const r = await fetch(`${h.base}/x402/balance/${account.address}`, { headers: { 'SIGN-IN-WITH-X': await signInHeader(h, account) } });
  const body = await r.json();
  assert.deepEqual([r.status, body.data.walletAddress, body.data.balanceUsd, body.data.canConsume], [200, account.address.toLowerCase(), 3, true]);
  assert.equal(r.headers.get('x-ratelimit-limit-requests'), '120', "wallet endpoints take from the wallet's management budget, as keys do");
  assert.equal((await fetch(`${h.base}/x402/balance/${account.address}`)).status, 402);
  const other = await fetch(`${h.base}/x402/balance/${evmWallet().address}`, { headers: { 'SIGN-IN-WITH-X': await signInHeader(h, account) } });
  assert.deepEqual([other.status, (await other.json()).code], [403, 'X402_WALLET_MISMATCH']);
  const bad = await fetch(`${h.base}/x402/transactions/not-an-address`, { headers: { 'SIGN-IN-WITH-X': await signInHeader(h, account) } });
  assert.equal(bad.status, 400);
  const badLimit = await fetch(`${h.base}/x402/transactions/${account.address}?limit=500`, { headers: { 'SIGN-IN-WITH-X': await signInHeader(h, account) } });
  assert.equal(badLimit.status, 400);
});

test('the challenge endpoint issues fresh single-use nonces bound to the public origin', async () => {
  const a = await (await fetch(`${h.base}/x402/siwx/challenge`)).json();
  const b = await (await fetch(`${h.base}/x402/siwx/challenge`)).json();
  assert.notEqual(a.data.info.nonce, b.data.info.nonce);
  assert.equal(a.data.info.domain, 'lagoon.test');
  assert.equal(new URL(a.data.info.uri).origin, 'https://lagoon.test');
  assert.ok(Date.parse(a.data.info.expirationTime) > Date.now());
});

test('wallets are rate limited like keys: per wallet and model, with x-ratelimit headers', async () => {
  const { account } = await fundedWallet(1);
  const { account: other } = await fundedWallet(1);
  const statuses: number[] = [];
  for (let i = 0; i < 4; i++) {
    const r = await walletChat(h, await signInHeader(h, account), { model: 'plain-model' });
    if (i === 0) assert.equal(r.headers.get('x-ratelimit-limit-requests'), '3');
    statuses.push(r.status);
  }
  assert.deepEqual(statuses, [200, 200, 200, 429]);
  assert.equal((await walletChat(h, await signInHeader(h, other), { model: 'plain-model' })).status, 200);
});
