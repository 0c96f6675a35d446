// x402's own `upto` for chat paid on the spot (LAGOON_X402_PER_REQUEST=1, upto on by default on Base) against the
// local chain with Permit2 and the upto proxy (e2e/support/chains/permit2.ts) and the in-process facilitator running
// the published upto facilitator scheme: a wallet with no account approves Permit2 once and pays with the published
// upto client, unmodified. The payer's USDC goes down by exactly what the chat cost, not the cap; the answer carries
// the settlement and the statement shows it; a replay pays nothing twice; a chat that fails moves nothing on chain.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { decodePaymentRequiredHeader, decodePaymentResponseHeader } from '@x402/core/http';
import type { PaymentRequired } from '@x402/core/types';
import { PERMIT2_ADDRESS } from '@x402/evm';
import { createPermit2ApprovalTx, UptoEvmScheme } from '@x402/evm/upto/client';
import { wrapFetchWithPayment, x402Client } from '@x402/fetch';
import type { Hex, LocalAccount } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { reconcile } from '../../lib/billing/entries.ts';
import { type Anvil, FACILITATOR_KEY, startAnvil, USDC } from '../support/chains/anvil.ts';
import { type Harness, startHarness } from '../support/harness.ts';
import { BASE_PAY_TO, evmWallet, signPayment, walletEnv, walletStatement } from './clients.ts';

let anvil: Anvil;
let h: Harness;
const FACILITATOR = privateKeyToAccount(FACILITATOR_KEY).address;

before(async () => {
  anvil = await startAnvil();
  h = await startHarness({ env: { ...walletEnv({ anvil }), LAGOON_X402_PER_REQUEST: '1', LAGOON_X402_PER_REQUEST_MAX_USD: '1' } });
});
after(async () => {
  await h?.close();
  await anvil?.close();
});

const chatBody = (content = '[[tokens:20]]', extra: Record<string, unknown> = {}) =>
  JSON.stringify({ model: 'scripted-model', max_tokens: 200, messages: [{ role: 'user', content }], ...extra });
const chat = (pay: typeof fetch, headers: Record<string, string> = {}, body = chatBody()) =>
  pay(`${h.base}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });

const uptoClient = (account: LocalAccount) => new x402Client().register('eip155:8453', new UptoEvmScheme(account));

/** A payer with `usd` of USDC and, unless told otherwise, Permit2 approved for it (one transaction of its own). */
async function payer(usd: number, approve = true): Promise<LocalAccount> {
  const account = evmWallet();
  await anvil.mint(account.address, BigInt(Math.round(usd * 1_000_000)));
  if (approve) await anvil.send(account, createPermit2ApprovalTx(USDC) as { to: Hex; data: Hex });
  return account;
}

async function required(body = chatBody()): Promise<PaymentRequired> {
  const res = await chat(fetch, {}, body);
  assert.equal(res.status, 402, await res.clone().text());
  return decodePaymentRequiredHeader(res.headers.get('payment-required')!);
}

const statement = (account: LocalAccount) => walletStatement(h, account);

const balances = async (account: LocalAccount) => [await anvil.usdcBalance(account.address), await anvil.usdcBalance(BASE_PAY_TO)];

test("a chat's 402 offers x402's upto on Base: the cap, Permit2, and the facilitator that settles it", async () => {
  const res = await chat(fetch);
  assert.equal(res.status, 402);
  const body = await res.json();
  const offer = body.accepts.find((a: { network: string }) => a.network === 'eip155:8453');
  assert.equal(offer.scheme, 'upto');
  assert.deepEqual(offer.extra, { name: 'USD Coin', version: '2', assetTransferMethod: 'permit2', facilitatorAddress: FACILITATOR });
  assert.ok(Number(offer.amount) > 400 && Number(offer.amount) < 1000, `cap ${offer.amount}`);
  assert.ok(body.resource.description.includes(PERMIT2_ADDRESS), 'the 402 says to approve Permit2');
});

test('a wallet with no account pays a chat upto its cap; only what it used moves on chain; a replay pays nothing twice', async () => {
  const account = await payer(1);
  const [payerBefore, payToBefore] = await balances(account);
  const req = await required();
  const cap = Number(req.accepts.find((a) => a.network === 'eip155:8453')!.amount);
  const header = await signPayment(uptoClient(account), req);

  const res = await chat(fetch, { 'PAYMENT-SIGNATURE': header });
  assert.equal(res.status, 200, await res.clone().text());
  const body = await res.json();
  const used = Math.round(body.cost.usd * 1_000_000);
  assert.ok(used > 0 && used < cap, `used ${used} of ${cap}`);
  const settlement = decodePaymentResponseHeader(res.headers.get('payment-response')!);
  assert.deepEqual(
    [settlement.success, settlement.network, settlement.payer?.toLowerCase(), settlement.amount],
    [true, 'eip155:8453', account.address.toLowerCase(), String(used)],
  );
  assert.match(settlement.transaction, /^0x[0-9a-f]{64}$/);
  assert.deepEqual(await balances(account), [payerBefore - BigInt(used), payToBefore + BigInt(used)], 'the charge moved, not the cap');

  const s = await statement(account);
  assert.equal(s.currentBalance, 0, 'nothing of the cap is left as credit: it never moved');
  assert.deepEqual(s.transactions.map((t) => [t.type, Math.round(t.amount * 1e6)]).sort(), [
    ['CHARGE', -used],
    ['TOP_UP', used],
  ]);
  const topUp = s.transactions.find((t) => t.type === 'TOP_UP')!;
  assert.deepEqual([topUp.transaction, topUp.requestId], [settlement.transaction, s.transactions.find((t) => t.type === 'CHARGE')!.requestId]);

  // The same payment again, under both names: refused, nothing runs or moves.
  for (const name of ['PAYMENT-SIGNATURE', 'X-PAYMENT']) {
    const again = await chat(fetch, { [name]: header });
    assert.equal(again.status, 409, await again.clone().text());
    assert.equal((await again.json()).code, 'PAYMENT_ALREADY_CREDITED');
  }
  assert.deepEqual(await balances(account), [payerBefore - BigInt(used), payToBefore + BigInt(used)]);
  assert.equal((await statement(account)).transactions.length, 2);
  // The provisional credit and its return are ledger entries: every balance still adds up.
  assert.deepEqual((await reconcile(h.svc.store)).differences, []);
});

test('the same upto payment sent five times at once runs one chat and settles once', async () => {
  const account = await payer(1);
  const [payerBefore, payToBefore] = await balances(account);
  const header = await signPayment(uptoClient(account), await required());
  const answers = await Promise.all(Array.from({ length: 5 }, () => chat(fetch, { 'PAYMENT-SIGNATURE': header })));
  const ok = answers.filter((r) => r.status === 200);
  assert.equal(ok.length, 1, answers.map((r) => r.status).join(','));
  for (const r of answers.filter((a) => a.status !== 200)) {
    assert.equal(r.status, 409);
    assert.match((await r.json()).code, /^PAYMENT_(IN_PROGRESS|ALREADY_CREDITED)$/);
  }
  const used = BigInt(Math.round((await ok[0].json()).cost.usd * 1_000_000));
  assert.deepEqual(await balances(account), [payerBefore - used, payToBefore + used]);
  assert.equal((await statement(account)).currentBalance, 0);
});

test('the published fetch wrapper pays a chat with upto on its own, and a streamed chat settles what it used', async () => {
  const account = await payer(1);
  const [payerBefore] = await balances(account);
  const res = await chat(wrapFetchWithPayment(fetch, uptoClient(account)));
  assert.equal(res.status, 200, await res.clone().text());
  const used = Math.round((await res.json()).cost.usd * 1_000_000);
  assert.equal(decodePaymentResponseHeader(res.headers.get('payment-response')!).amount, String(used));

  // A stream's headers leave before its settlement: it carries no PAYMENT-RESPONSE, and its payment still settles.
  const stream = await chat(wrapFetchWithPayment(fetch, uptoClient(account)), {}, chatBody('[[tokens:20]]', { stream: true }));
  assert.equal(stream.status, 200, await stream.clone().text());
  assert.match(await stream.text(), /\[DONE\]/);
  const s = await statement(account);
  const paid = s.transactions.filter((t) => t.type === 'TOP_UP').map((t) => Math.round(t.amount * 1e6));
  const charged = s.transactions.filter((t) => t.type === 'CHARGE').map((t) => -Math.round(t.amount * 1e6));
  assert.deepEqual([paid.length, paid.sort(), s.currentBalance], [2, charged.sort(), 0]);
  assert.equal(await anvil.usdcBalance(account.address), payerBefore - BigInt(paid[0] + paid[1]));
});

test('without a Permit2 approval the payment is refused at verification, saying so; nothing runs or moves', async () => {
  const account = await payer(1, false);
  const [payerBefore, payToBefore] = await balances(account);
  const res = await chat(fetch, { 'PAYMENT-SIGNATURE': await signPayment(uptoClient(account), await required()) });
  assert.equal(res.status, 402, await res.clone().text());
  const body = await res.json();
  assert.deepEqual([body.code, body.details?.reason], ['PAYMENT_VERIFICATION_FAILED', 'permit2_allowance_required']);
  assert.deepEqual(await balances(account), [payerBefore, payToBefore]);
});

test('a chat that fails moves nothing on chain and leaves the wallet nothing', async () => {
  const account = await payer(1);
  const [payerBefore, payToBefore] = await balances(account);
  const body = chatBody('[[status:500]]');
  const header = await signPayment(uptoClient(account), await required(body));
  const res = await chat(fetch, { 'PAYMENT-SIGNATURE': header }, body);
  assert.ok(res.status >= 500, `status ${res.status}: ${await res.clone().text()}`);
  assert.equal(res.headers.get('payment-response'), null);
  // The release is written after the answer: wait for the claim to be let go.
  let status: string | undefined;
  for (let i = 0; i < 100 && status !== 'failed'; i++) {
    const row = await h.svc.store.get<{ status: string }>("SELECT status FROM x402_topups WHERE payer = $1 AND scheme = 'upto'", [
      account.address.toLowerCase(),
    ]);
    status = row?.status;
    if (status !== 'failed') await new Promise((r) => setTimeout(r, 50));
  }
  assert.equal(status, 'failed');
  assert.deepEqual(await balances(account), [payerBefore, payToBefore]);
  const s = await statement(account);
  assert.deepEqual([s.currentBalance, s.transactions.length], [0, 0]);
  assert.deepEqual((await reconcile(h.svc.store)).differences, []);
});
