// x402's own `upto` for chat paid on the spot (LAGOON_X402_PER_REQUEST=1, upto on by default on Base) against the
// local chain with Permit2 and the upto proxy (e2e/support/chains/permit2.ts) and the in-process facilitator running
// the published upto facilitator scheme: a wallet with no account approves Permit2 once and pays with the published
// upto client, unmodified. The payer's USDC goes down by exactly what the chat cost, not the cap; the answer carries
// the settlement and the statement shows it; a replay pays nothing twice; a chat that fails moves nothing on chain.
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, test } from 'node:test';
import { decodePaymentRequiredHeader, decodePaymentResponseHeader } from '@x402/core/http';
import type { PaymentRequired } from '@x402/core/types';
import { PERMIT2_ADDRESS } from '@x402/evm';
import { createPermit2ApprovalTx, UptoEvmScheme } from '@x402/evm/upto/client';
import { wrapFetchWithPayment, x402Client } from '@x402/fetch';
import OpenAI from 'openai';
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

  // A stream's head leaves before its settlement: the settlement comes at its end (see the streamed tests below).
  const stream = await chat(wrapFetchWithPayment(fetch, uptoClient(account)), {}, chatBody('[[tokens:20]]', { stream: true }));
  assert.equal(stream.status, 200, await stream.clone().text());
  assert.equal(stream.headers.get('trailer'), 'PAYMENT-RESPONSE');
  assert.match(await stream.text(), /: payment-response [A-Za-z0-9+/=]+\n\n[\s\S]*\[DONE\]/);
  const s = await statement(account);
  const paid = s.transactions.filter((t) => t.type === 'TOP_UP').map((t) => Math.round(t.amount * 1e6));
  const charged = s.transactions.filter((t) => t.type === 'CHARGE').map((t) => -Math.round(t.amount * 1e6));
  assert.deepEqual([paid.length, paid.sort(), s.currentBalance], [2, charged.sort(), 0]);
  assert.equal(await anvil.usdcBalance(account.address), payerBefore - BigInt(paid[0] + paid[1]));
});

/** A streamed chat over node:http, read to its end: the head, the body, and the trailers (fetch has none). */
function streamOverHttp(
  headers: Record<string, string>,
): Promise<{ status: number; head: http.IncomingHttpHeaders; body: string; trailers: NodeJS.Dict<string> }> {
  const body = chatBody('[[tokens:20]]', { stream: true });
  return new Promise((resolve, reject) => {
    const req = http.request(`${h.base}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, head: res.headers, body: text, trailers: res.trailers }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

test('a streamed chat paid upto its cap carries its settlement as an HTTP trailer and an SSE comment before [DONE]', async () => {
  const account = await payer(1);
  const [payerBefore, payToBefore] = await balances(account);
  const header = await signPayment(uptoClient(account), await required(chatBody('[[tokens:20]]', { stream: true })));
  const res = await streamOverHttp({ 'PAYMENT-SIGNATURE': header });
  assert.equal(res.status, 200, res.body);
  assert.equal(res.head['payment-response'], undefined, 'the head left before the settlement');
  assert.equal(res.head.trailer, 'PAYMENT-RESPONSE');
  assert.equal(res.head['transfer-encoding'], 'chunked');
  const trailer = decodePaymentResponseHeader(res.trailers['payment-response']!);
  // The comment comes after the last content chunk, before the usage chunk and [DONE].
  const lines = res.body.split('\n\n').filter(Boolean);
  const at = lines.findIndex((l) => l.startsWith(': payment-response '));
  assert.ok(at > 0, res.body);
  assert.equal(lines[at].slice(': payment-response '.length), res.trailers['payment-response']);
  assert.match(lines[at + 1], /^data: \{.*"usage":/);
  assert.equal(lines[at + 2], 'data: [DONE]');
  const used = Math.round(JSON.parse(lines[at + 1].slice(6)).cost.usd * 1_000_000);
  assert.deepEqual([trailer.success, trailer.payer?.toLowerCase(), trailer.amount], [true, account.address.toLowerCase(), String(used)]);
  assert.deepEqual(await balances(account), [payerBefore - BigInt(used), payToBefore + BigInt(used)], 'the charge moved, not the cap');
  const topUp = (await statement(account)).transactions.find((t) => t.type === 'TOP_UP')!;
  assert.equal(topUp.transaction, trailer.transaction);

  // Paid under the legacy header name, the stream names both headers.
  const legacy = await payer(1);
  const paid = await streamOverHttp({ 'X-PAYMENT': await signPayment(uptoClient(legacy), await required(chatBody('[[tokens:20]]', { stream: true }))) });
  assert.equal(paid.status, 200, paid.body);
  assert.equal(paid.head.trailer, 'PAYMENT-RESPONSE, X-PAYMENT-RESPONSE');
  assert.equal(paid.trailers['x-payment-response'], paid.trailers['payment-response']);
  assert.match(paid.body, /: payment-response \S+\n\n: x-payment-response \S+\n\ndata: \{/);
});

test('the openai client reads a stream paid upto its cap as any other: the comment line is not a chunk', async () => {
  const account = await payer(1);
  // The client always sends a bearer key; a request paid on the spot has none, so the paying fetch drops it.
  const pay = wrapFetchWithPayment(fetch, uptoClient(account));
  const keyless: typeof fetch = (input, init) => {
    const headers = new Headers(init?.headers);
    headers.delete('authorization');
    return pay(input, { ...init, headers });
  };
  const client = new OpenAI({ apiKey: 'unused', baseURL: h.base, maxRetries: 0, fetch: keyless });
  const stream = await client.chat.completions.create({
    model: 'scripted-model',
    max_tokens: 200,
    messages: [{ role: 'user', content: '[[tokens:20]]' }],
    stream: true,
  });
  const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  assert.ok(
    chunks.every((c) => c.object === 'chat.completion.chunk'),
    JSON.stringify(chunks.at(-1)),
  );
  const text = chunks.map((c) => c.choices[0]?.delta?.content ?? '').join('');
  assert.equal(text.split(/\s+/).filter(Boolean).length, 20, text);
  const usage = chunks.at(-1) as unknown as { usage: object; cost: { usd: number } };
  assert.ok(usage.usage && usage.cost.usd > 0, 'the usage chunk is the last');
  const paid = (await statement(account)).transactions.filter((t) => t.type === 'TOP_UP');
  assert.deepEqual(
    paid.map((t) => Math.round(t.amount * 1e6)),
    [Math.round(usage.cost.usd * 1e6)],
  );
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
