// Auto top-up on Base (anvil, test USDC at the Base USDC address): a wallet signs a few EIP-3009 authorizations with
// a published x402 client against GET /x402/auto-top-up's requirement, opts in with PUT, and a charge that leaves its
// balance below the threshold settles exactly one of them on chain; the overall cap (their sum) and a period cap
// hold; revoking discards the rest; two instances sharing PostgreSQL racing the same account settle one.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { PaymentRequirements } from '@x402/core/types';
import type { LocalAccount } from 'viem';
import { type Anvil, CONTRACTS, startAnvil, USDC } from '../support/chains/anvil.ts';
import { cancelTypedData } from '../../lib/wallet/auto-topup-cancel.ts';
import { type Harness, scriptedModel, startHarness } from '../support/harness.ts';
import { createTestDatabase } from '../support/pg.ts';
import { BASE_PAY_TO, evmPayer, evmWallet, postTopUp, signInHeader, signPayment, topUpRequirements, walletChat, walletEnv } from './clients.ts';

let anvil: Anvil;
before(async () => {
  anvil = await startAnvil();
});
after(async () => {
  await anvil?.close();
});

// A chat on this model costs cents (1 cent a prompt token), so a test can cross a threshold with one request.
const dearModel = (url: string) => [
  scriptedModel('dear-model', url, { pricing: { input_usd: 10_000, output_usd: 20_000, input_diem: 10_000, output_diem: 20_000 } }),
];

async function api(h: Harness, account: LocalAccount, method: string, path: string, body?: unknown) {
  const res = await fetch(`${h.base}${path}`, {
    method,
    headers: { 'SIGN-IN-WITH-X': await signInHeader(h, account), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: JSON.parse(text), text };
}

/** `n` authorizations of `usd` each, signed by the published x402 client against the server's auto top-up requirement. */
async function authorizations(h: Harness, account: LocalAccount, usd: number, n: number) {
  const r = await api(h, account, 'GET', `/x402/auto-top-up?amount=${usd}`);
  assert.equal(r.status, 200, r.text);
  const toSign = r.json.data.toSign as PaymentRequirements;
  assert.ok(toSign.maxTimeoutSeconds >= 30 * 86_400, 'signed for months, not minutes');
  const client = evmPayer(account);
  const out: Record<string, unknown>[] = [];
  for (let i = 0; i < n; i++) {
    out.push(
      (await client.createPaymentPayload({
        x402Version: 2,
        resource: { url: 'x', description: 'auto top-up', mimeType: 'application/json' },
        accepts: [toSign],
      })) as never,
    );
  }
  return out;
}

async function funded(usd: number) {
  const account = evmWallet();
  await anvil.mint(account.address, BigInt(usd * 1_000_000));
  return account;
}

async function statement(h: Harness, account: LocalAccount) {
  const r = await api(h, account, 'GET', `/x402/transactions/${account.address}`);
  assert.equal(r.status, 200, r.text);
  return r.json.data as { currentBalance: number; transactions: { type: string; amount: number; autoTopUp?: boolean; transaction: string }[] };
}

describe('one instance (SQLite)', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ env: walletEnv({ anvil }), models: dearModel });
  });
  after(async () => {
    await h?.close();
  });

  test('opt in, spend below the threshold: exactly one authorization settles on chain, then none while above', async (t) => {
    const account = await funded(100);
    const payTo0 = await anvil.usdcBalance(BASE_PAY_TO);
    assert.equal((await postTopUp(h, await signPayment(evmPayer(account), await topUpRequirements(h, 5)))).status, 200);

    const payments = await authorizations(h, account, 5, 3);
    const put = await api(h, account, 'PUT', '/x402/auto-top-up', { thresholdUsd: 4.9, amountUsd: 5, payments });
    assert.equal(put.status, 200, put.text);
    assert.equal(put.json.data.mandate.remainingUsd, 15);
    assert.deepEqual(
      put.json.data.authorizations.map((a: { status: string }) => a.status),
      ['ready', 'ready', 'ready'],
    );
    assert.ok(!put.text.includes((payments[0] as { payload: { signature: string } }).payload.signature), 'signatures never come back');
    await h.svc.wallet.autoTopUps.idle();
    assert.equal(await anvil.usdcBalance(BASE_PAY_TO), payTo0 + 5_000_000n, 'a balance above the threshold: nothing settled');

    const chat = await walletChat(h, await signInHeader(h, account), { model: 'dear-model', max_tokens: 5 });
    assert.equal(chat.status, 200, chat.text);
    const spentAt = Date.now();
    let tx: string | undefined;
    while (!tx && Date.now() - spentAt < 20_000) {
      tx = (await statement(h, account)).transactions.find((e) => e.autoTopUp)?.transaction;
      if (!tx) await new Promise((r) => setTimeout(r, 50));
    }
    t.diagnostic(`auto top-up credited ${Date.now() - spentAt} ms after the charge's answer`);
    assert.match(tx ?? '', /^0x[0-9a-f]{64}$/);
    await h.svc.wallet.autoTopUps.idle();

    // Above the threshold again: more charges settle nothing more.
    assert.equal((await walletChat(h, await signInHeader(h, account), { model: 'dear-model', max_tokens: 5 })).status, 200);
    await h.svc.wallet.autoTopUps.idle();
    assert.equal(await anvil.usdcBalance(BASE_PAY_TO), payTo0 + 10_000_000n, 'one auto top-up on chain');
    assert.equal(await anvil.usdcBalance(account.address), 90_000_000n);
    const s = await statement(h, account);
    assert.equal(s.transactions.filter((e) => e.autoTopUp).length, 1);
    assert.ok(s.currentBalance > 9 && s.currentBalance < 10, String(s.currentBalance));
    const state = (await api(h, account, 'GET', '/x402/auto-top-up')).json.data;
    assert.equal(state.mandate.remainingUsd, 10);
    assert.deepEqual(
      state.authorizations.map((a: { status: string; seq: number }) => [a.seq, a.status]),
      [
        [3, 'ready'],
        [2, 'ready'],
        [1, 'settled'],
      ],
    );
    // The account's statement (GET /billing/statement's source) names it, and the ledger holds its entry.
    const entry = await h.svc.store.get<{ note: string }>(`SELECT note FROM ledger_entries WHERE kind = 'topup' AND note LIKE 'auto top-up %'`);
    assert.equal(entry?.note, `auto top-up ${tx}`);
  });

  test('the cap: the signed sum is all that moves, and a period cap stops earlier', async () => {
    const account = await funded(100);
    const payTo0 = await anvil.usdcBalance(BASE_PAY_TO);
    // Threshold far above anything: every check wants a top-up; only the authorizations limit it.
    const put = await api(h, account, 'PUT', '/x402/auto-top-up', { thresholdUsd: 1000, amountUsd: 5, payments: await authorizations(h, account, 5, 2) });
    assert.equal(put.status, 200, put.text);
    await h.svc.wallet.autoTopUps.idle();
    const wallet = (await h.svc.store.get<{ account_id: string }>('SELECT account_id FROM wallets WHERE address = $1', [account.address.toLowerCase()]))!;
    for (let i = 0; i < 3; i++) await h.svc.wallet.autoTopUps.check(wallet.account_id);
    assert.deepEqual(await h.svc.wallet.autoTopUps.check(wallet.account_id), { kind: 'none', why: 'no authorization left' });
    assert.equal(await anvil.usdcBalance(BASE_PAY_TO), payTo0 + 10_000_000n, 'two authorizations: 10 USD, no more');
    assert.equal(await anvil.usdcBalance(account.address), 90_000_000n);

    // A period cap of one top-up a day (another wallet: a wallet's auto top-ups count towards its period whatever
    // mandate signed them): the second authorization waits.
    const daily = await funded(100);
    const capped = await api(h, daily, 'PUT', '/x402/auto-top-up', {
      thresholdUsd: 1000,
      amountUsd: 5,
      periodCapUsd: 5,
      periodDays: 1,
      payments: await authorizations(h, daily, 5, 2),
    });
    assert.equal(capped.status, 200, capped.text);
    await h.svc.wallet.autoTopUps.idle();
    const dailyAccount = (await h.svc.store.get<{ account_id: string }>('SELECT account_id FROM wallets WHERE address = $1', [daily.address.toLowerCase()]))!;
    assert.deepEqual(await h.svc.wallet.autoTopUps.check(dailyAccount.account_id), { kind: 'none', why: 'period cap reached' });
    const state = (await api(h, daily, 'GET', '/x402/auto-top-up')).json.data;
    assert.deepEqual([state.mandate.periodUsedUsd, state.mandate.remainingUsd], [5, 5]);
    assert.equal(await anvil.usdcBalance(daily.address), 95_000_000n);
  });

  test('revoke: unused authorizations are discarded and listed, and nothing settles afterwards', async () => {
    const account = await funded(100);
    assert.equal((await postTopUp(h, await signPayment(evmPayer(account), await topUpRequirements(h, 5)))).status, 200);
    const put = await api(h, account, 'PUT', '/x402/auto-top-up', { thresholdUsd: 4.9, amountUsd: 5, payments: await authorizations(h, account, 5, 2) });
    assert.equal(put.status, 200, put.text);
    const del = await api(h, account, 'DELETE', '/x402/auto-top-up');
    assert.equal(del.status, 200, del.text);
    assert.equal(del.json.data.mandate, null);
    assert.equal(del.json.data.discarded.length, 2);
    assert.deepEqual(
      del.json.data.authorizations.map((a: { status: string }) => a.status),
      ['revoked', 'revoked'],
    );
    const kept = await h.svc.store.all(
      'SELECT 1 FROM auto_topup_authorizations WHERE payment IS NOT NULL AND nonce IN ($1, $2)',
      del.json.data.discarded.map((d: { nonce: string }) => d.nonce),
    );
    assert.equal(kept.length, 0, 'the signatures are deleted');
    assert.equal((await walletChat(h, await signInHeader(h, account), { model: 'dear-model', max_tokens: 5 })).status, 200);
    await h.svc.wallet.autoTopUps.idle();
    assert.equal(await anvil.usdcBalance(account.address), 95_000_000n, 'only the manual top-up moved');

    // The wallet signs cancelAuthorization for the discarded nonces; the server submits them and pays the gas.
    const nonces: string[] = del.json.data.discarded.map((d: { nonce: string }) => d.nonce);
    const sign = (nonce: string) => account.signTypedData(cancelTypedData(h.svc.wallet.settings, account.address, nonce));
    const forged = await api(h, account, 'POST', '/x402/auto-top-up/cancel', {
      cancellations: [{ nonce: nonces[0], signature: await evmWallet().signTypedData(cancelTypedData(h.svc.wallet.settings, account.address, nonces[0])) }],
    });
    assert.equal(forged.status, 400, forged.text);
    const cancel = await api(h, account, 'POST', '/x402/auto-top-up/cancel', {
      cancellations: await Promise.all(nonces.map(async (nonce) => ({ nonce, signature: await sign(nonce) }))),
    });
    assert.equal(cancel.status, 200, cancel.text);
    assert.equal(cancel.json.data.cancelled.length, 2);
    for (const nonce of nonces) {
      const used = await anvil.publicClient.readContract({
        address: USDC,
        abi: CONTRACTS.TestUSDC.abi,
        functionName: 'authorizationState',
        args: [account.address, nonce],
      });
      assert.equal(used, true, 'retired on chain');
    }
    const listed = (await api(h, account, 'GET', '/x402/auto-top-up')).json.data.authorizations;
    assert.deepEqual(
      listed.map((a: { status: string }) => a.status),
      ['cancelled', 'cancelled'],
    );
    assert.equal(await anvil.usdcBalance(account.address), 95_000_000n, 'cancelling moves no USDC');
  });

  test('a ready authorization cannot be cancelled before it is revoked', async () => {
    const account = await funded(10);
    const put = await api(h, account, 'PUT', '/x402/auto-top-up', { thresholdUsd: 0, amountUsd: 5, payments: await authorizations(h, account, 5, 1) });
    assert.equal(put.status, 200, put.text);
    const nonce = put.json.data.authorizations[0].nonce;
    const r = await api(h, account, 'POST', '/x402/auto-top-up/cancel', {
      cancellations: [{ nonce, signature: await account.signTypedData(cancelTypedData(h.svc.wallet.settings, account.address, nonce)) }],
    });
    assert.equal(r.status, 409, r.text);
  });

  test("refusals: another wallet's authorization, a short validity, a wrong amount, Solana-less checks", async () => {
    const account = await funded(10);
    const other = await funded(10);
    const theirs = await authorizations(h, other, 5, 1);
    const bad = async (body: unknown) => api(h, account, 'PUT', '/x402/auto-top-up', body);
    assert.equal((await bad({ thresholdUsd: 1, amountUsd: 5, payments: theirs })).json.code, 'X402_WALLET_MISMATCH');
    const mine = await authorizations(h, account, 5, 1);
    assert.equal((await bad({ thresholdUsd: 1, amountUsd: 6, payments: mine })).json.code, 'AMOUNT_TOO_LOW');
    assert.equal((await bad({ thresholdUsd: 1, amountUsd: 1, payments: mine })).json.code, 'AMOUNT_TOO_LOW');
    assert.equal((await bad({ thresholdUsd: 1, amountUsd: 5, payments: [...mine, ...mine] })).json.code, 'INVALID_PAYMENT');
    assert.equal((await bad({ thresholdUsd: 1, amountUsd: 5, payments: [] })).status, 400);
    assert.equal((await bad({ thresholdUsd: 1, amountUsd: 5, periodCapUsd: 5, payments: mine })).status, 400);
    // An ordinary top-up's authorization lives minutes: refused for auto top-up.
    const shortLived = JSON.parse(Buffer.from(await signPayment(evmPayer(account), await topUpRequirements(h, 5)), 'base64').toString());
    const short = await bad({ thresholdUsd: 1, amountUsd: 5, payments: [shortLived] });
    assert.equal(short.status, 400);
    assert.match(short.json.error, /valid at least/);
    assert.ok((await fetch(`${h.base}/x402/auto-top-up`)).status >= 400, 'a wallet sign-in is required');
    assert.equal((await api(h, account, 'GET', '/x402/auto-top-up')).json.data.mandate, null);
  });
});

describe('two instances sharing PostgreSQL', () => {
  let a: Harness;
  let b: Harness;
  let db: { url: string; drop(): Promise<void> };
  before(async () => {
    db = await createTestDatabase();
    a = await startHarness({ env: walletEnv({ anvil }), databaseUrl: db.url });
    b = await startHarness({ env: walletEnv({ anvil }), databaseUrl: db.url });
  });
  after(async () => {
    await a?.close();
    await b?.close();
    await db?.drop();
  });

  test('both check the same account at once, repeatedly: one authorization settles, once', async () => {
    const account = await funded(50);
    const payTo0 = await anvil.usdcBalance(BASE_PAY_TO);
    // Opt in with the balance at 0 and a threshold of 3: instance a is nudged by its PUT, while both also check.
    const payments = await authorizations(a, account, 5, 3);
    const wallet = async () =>
      (await a.svc.store.get<{ account_id: string }>('SELECT account_id FROM wallets WHERE address = $1', [account.address.toLowerCase()]))!;
    const put = api(a, account, 'PUT', '/x402/auto-top-up', { thresholdUsd: 3, amountUsd: 5, payments });
    const { account_id } = await wallet();
    const racers = Array.from({ length: 6 }, (_, i) => (i % 2 ? a : b).svc.wallet.autoTopUps.check(account_id));
    assert.equal((await put).status, 200);
    const outcomes = [...(await Promise.all(racers)), ...(await Promise.all([a, b, a, b].map((h) => h.svc.wallet.autoTopUps.check(account_id))))];
    await Promise.all([a.svc.wallet.autoTopUps.idle(), b.svc.wallet.autoTopUps.idle()]);
    assert.ok(outcomes.filter((o) => o.kind === 'settled').length <= 1, JSON.stringify(outcomes));
    assert.equal(await anvil.usdcBalance(BASE_PAY_TO), payTo0 + 5_000_000n, 'one transfer on chain');
    assert.equal(await anvil.usdcBalance(account.address), 45_000_000n);
    const balance = await a.svc.store.get<{ usd: number }>('SELECT usd FROM accounts WHERE id = $1', [account_id]);
    assert.equal(Number(balance?.usd), 5_000_000);
    const rows = await a.svc.store.all<{ status: string }>(
      'SELECT status FROM auto_topup_authorizations WHERE wallet_id = (SELECT id FROM wallets WHERE account_id = $1) ORDER BY seq',
      [account_id],
    );
    assert.deepEqual(
      rows.map((r) => r.status),
      ['settled', 'ready', 'ready'],
    );
  });
});
