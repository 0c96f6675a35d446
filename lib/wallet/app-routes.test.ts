// The app's wallet routes on a real service with local chains (anvil for Base, LiteSVM for Solana): Sign-In-With-X
// into a browser session (EVM and Solana), the refusals (replay, expired, other domain), top-ups that settle on chain
// and credit exactly once, a payer other than the session's wallet refused before settlement, a Solana payment the
// server builds for the browser (the wallet only signs it), and chat through the wallet's own key. Every response is
// scanned for key material.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createKeyPairSignerFromPrivateKeyBytes, getTransactionDecoder, getTransactionEncoder, type KeyPairSigner } from '@solana/kit';
import { x402Client } from '@x402/core/client';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { ExactSvmScheme } from '@x402/svm/exact/client';
import { base58 } from '@scure/base';
import { randomBytes } from 'node:crypto';
import type { LocalAccount } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { type Anvil, FACILITATOR_KEY, startAnvil, USDC } from '../../e2e/support/chains/anvil.ts';
import { type Solana, solanaKeyPair, startSolana } from '../../e2e/support/chains/solana.ts';
import { type Harness, startHarness } from '../../e2e/support/harness.ts';
import { principalForUser } from '../users/users.ts';
import { readSession } from '../users/sessions.ts';
import { findWallet } from './wallets.ts';
import type { AppDeps } from '../http/app-deps.ts';
import type { WalletChallenge, WalletTopUpRequirements } from '../wire.ts';
import { authRoutes } from '../account/app-auth.ts';
import { catalogueRoutes } from '../catalogue/app-routes.ts';
import { type Browser, caller, cookieFrom, ORIGIN } from '../../e2e/support/app-requests.ts';
import { walletRoutes } from './app-routes.ts';

let anvil: Anvil;
let solana: Solana;
let h: Harness;
let call: ReturnType<typeof caller>;
let routes: ReturnType<typeof walletRoutes>;
let auth: ReturnType<typeof authRoutes>;
let catalogue: ReturnType<typeof catalogueRoutes>;
const BASE_PAY_TO = privateKeyToAccount(generatePrivateKey()).address;
const SOL_PAY_TO = solanaKeyPair().address;

before(async () => {
  [anvil, solana] = await Promise.all([startAnvil(), startSolana()]);
  await solana.fund(SOL_PAY_TO, 0n);
  h = await startHarness({
    env: {
      // Sign-in messages are bound to the origin the browser app is reached at.
      LAGOON_PUBLIC_URL: ORIGIN,
      LAGOON_X402_BASE_RPC_URL: anvil.rpcUrl,
      LAGOON_X402_BASE_PAY_TO: BASE_PAY_TO,
      LAGOON_X402_BASE_FACILITATOR_KEY: FACILITATOR_KEY,
      LAGOON_X402_SOLANA_RPC_URL: solana.rpcUrl,
      LAGOON_X402_SOLANA_PAY_TO: SOL_PAY_TO,
      LAGOON_X402_SOLANA_FEE_PAYER_KEY: base58.encode(solana.feePayer.secret),
      LAGOON_X402_MAX_TOPUP_USD: '100',
    },
  });
  const deps: AppDeps = { svc: h.svc, app: h.svc.config.app };
  call = caller(h.svc.store);
  routes = walletRoutes(deps);
  auth = authRoutes(deps);
  catalogue = catalogueRoutes(deps);
});
after(async () => {
  await h?.close();
  await Promise.all([anvil?.close(), solana?.close()]);
});

type Signer = { kind: 'evm'; account: LocalAccount } | { kind: 'solana'; signer: KeyPairSigner; seed: Uint8Array };
const evmSigner = (): Signer => ({ kind: 'evm', account: privateKeyToAccount(generatePrivateKey()) });
async function solSigner(): Promise<Signer> {
  const seed = new Uint8Array(randomBytes(32));
  return { kind: 'solana', signer: await createKeyPairSignerFromPrivateKeyBytes(seed), seed };
}
const addressOf = (s: Signer) => (s.kind === 'evm' ? s.account.address : s.signer.address);

async function getChallenge(s: Signer): Promise<WalletChallenge> {
  const r = await call(routes.walletChallenge, `/wallet/challenge?chain=${s.kind}&address=${addressOf(s)}`);
  assert.equal(r.status, 200, r.text);
  return r.json;
}

/** Signs the message text as the wallet would: EIP-191 personal_sign, or Ed25519 over the UTF-8 text (base58). */
async function sign(s: Signer, message: string): Promise<string> {
  if (s.kind === 'evm') return s.account.signMessage({ message });
  const [signed] = await s.signer.signMessages([{ content: new TextEncoder().encode(message), signatures: {} }]);
  return base58.encode(signed[s.signer.address]);
}

async function signedPayload(s: Signer, edit?: (c: WalletChallenge) => WalletChallenge) {
  const c = (edit ?? ((x) => x))(await getChallenge(s));
  return { ...c.fields, signature: await sign(s, c.message) };
}

const postSignIn = (payload: unknown, browser?: Browser) => call(routes.walletSignIn, '/wallet/sign-in', { method: 'POST', body: { payload }, browser });

async function signIn(s: Signer): Promise<Browser & { userId: string }> {
  const r = await postSignIn(await signedPayload(s));
  assert.equal(r.status, 200, r.text);
  return { ip: '192.0.2.1', cookie: cookieFrom(r), csrf: r.json.csrfToken, userId: r.json.user.id };
}

describe('sign-in', () => {
  test('challenge: the exact text to sign, bound to the public origin, with a fresh nonce; bad input is a 400', async () => {
    const s = evmSigner();
    const a = await getChallenge(s);
    const b = await getChallenge(s);
    assert.notEqual(a.fields.nonce, b.fields.nonce);
    assert.equal(a.fields.domain, 'chat.test');
    assert.equal(a.fields.uri, `${ORIGIN}/api/app/wallet/sign-in`);
    assert.equal(a.fields.chainId, 'eip155:8453');
    assert.match(a.message, new RegExp(`^chat\\.test wants you to sign in with your Ethereum account:\\n${addressOf(s)}\\n`));
    assert.match(a.message, new RegExp(`\\nNonce: ${a.fields.nonce}\\n`));
    for (const q of ['chain=evm&address=0x12', 'chain=tron&address=x', `chain=solana&address=${addressOf(s)}`, 'chain=evm']) {
      const r = await call(routes.walletChallenge, `/wallet/challenge?${q}`);
      assert.equal(r.status, 400, q);
      assert.equal(r.json.code, 'INVALID_REQUEST');
    }
  });

  test('an EVM wallet (viem local account) signs in: session cookie, MeResponse with the wallet, the same user next time', async () => {
    const s = evmSigner();
    const r = await postSignIn(await signedPayload(s));
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.user.email, null);
    assert.equal(r.json.user.isAdmin, false);
    assert.deepEqual(r.json.user.wallet, { address: addressOf(s).toLowerCase(), chain: 'evm' });
    assert.match(r.json.user.displayName, /^0x[0-9a-f]{4}…[0-9a-f]{4}$/);
    const b: Browser = { ip: '192.0.2.1', cookie: cookieFrom(r), csrf: r.json.csrfToken };
    const me = await call(auth.me, '/auth/me', { browser: b });
    assert.equal(me.status, 200);
    assert.equal(me.json.user.id, r.json.user.id);
    assert.deepEqual(me.json.user.wallet, r.json.user.wallet);
    const again = await signIn(s);
    assert.equal(again.userId, r.json.user.id);
  });

  test('a Solana wallet (Ed25519 key pair) signs in', async () => {
    const s = await solSigner();
    const c = await getChallenge(s);
    assert.equal(c.fields.chainId, 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp');
    assert.match(c.message, /wants you to sign in with your Solana account:/);
    const r = await postSignIn({ ...c.fields, signature: await sign(s, c.message) });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.json.user.wallet, { address: addressOf(s), chain: 'solana' });
  });

  test('a replayed payload, an expired challenge, another domain, a wrong signer and a foreign Origin are refused', async () => {
    const s = evmSigner();
    const payload = await signedPayload(s);
    assert.equal((await postSignIn(payload)).status, 200);
    const replay = await postSignIn(payload);
    assert.equal(replay.status, 401);
    assert.equal(replay.json.code, 'X402_SIGN_IN_NONCE_REUSED');

    const old = new Date(Date.now() - 20 * 60_000).toISOString();
    const expired = await postSignIn(await signedPayload(s, (c) => ({ ...c, fields: { ...c.fields, issuedAt: old, expirationTime: old } })));
    assert.equal(expired.status, 401);
    assert.equal(expired.json.code, 'X402_SIGN_IN_EXPIRED');

    // Signed honestly, but for another site: the text names evil.test.
    const c = await getChallenge(s);
    const fields = { ...c.fields, domain: 'evil.test', uri: 'https://evil.test/' };
    const text = c.message.replace('chat.test wants', 'evil.test wants').replace(c.fields.uri, 'https://evil.test/');
    const other = await postSignIn({ ...fields, signature: await sign(s, text) });
    assert.equal(other.status, 401);
    assert.equal(other.json.code, 'X402_SIGN_IN_DOMAIN_MISMATCH');

    const c2 = await getChallenge(s);
    const forged = await postSignIn({ ...c2.fields, signature: await sign(evmSigner(), c2.message) });
    assert.equal(forged.status, 401);
    assert.equal(forged.json.code, 'X402_SIGN_IN_INVALID_SIGNATURE');

    const foreign = await call(routes.walletSignIn, '/wallet/sign-in', {
      method: 'POST',
      body: { payload: await signedPayload(s) },
      headers: { origin: 'https://evil.test' },
    });
    assert.equal(foreign.status, 403);
    for (const body of [{}, { payload: 'x' }, { payload: [] }]) {
      const r = await call(routes.walletSignIn, '/wallet/sign-in', { method: 'POST', body });
      assert.ok(r.status === 400 || r.status === 401, `${JSON.stringify(body)} → ${r.status}`);
    }
  });

  test('a wallet user chats through the wallet account and its server-held key', async () => {
    const s = evmSigner();
    const b = await signIn(s);
    const session = await readSession(h.svc.store, decodeURIComponent(b.cookie!.split('=')[1]));
    const wallet = await findWallet(h.svc.store, 'eip155', addressOf(s));
    assert.ok(session && wallet);
    const p = await principalForUser(h.svc.store, session.user);
    assert.deepEqual([p.accountId, p.keyId], [wallet.accountId, wallet.keyId]);
  });
});

async function requirements(b: Browser, chain: 'evm' | 'solana', amount: string) {
  return call(routes.walletTopUpRequirements, `/wallet/top-up/requirements?chain=${chain}&amount=${amount}`, { browser: b });
}

async function pay(s: Signer, req: WalletTopUpRequirements) {
  const client =
    s.kind === 'evm'
      ? new x402Client().register('eip155:8453', new ExactEvmScheme(s.account))
      : new x402Client().register('solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp', new ExactSvmScheme(s.signer, { rpcUrl: solana.rpcUrl }));
  return client.setSpendControls({ maxAmountPerPayment: '$10000' }).createPaymentPayload(req as never);
}

const postTopUp = (b: Browser, payment: unknown, o: { noCsrf?: boolean } = {}) =>
  call(routes.walletTopUp, '/wallet/top-up', { method: 'POST', body: { payment }, browser: b, ...o });

describe('top-up', () => {
  test('EVM: requirements from configuration; $12.5 settles on anvil and credits once; the account shows it', async () => {
    const s = evmSigner();
    await anvil.mint(addressOf(s), 50_000_000n);
    const b = await signIn(s);
    const r = await requirements(b, 'evm', '12.5');
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(
      r.json.accepts.map((a: any) => [a.network, a.amount, a.payTo]),
      [['eip155:8453', '12500000', BASE_PAY_TO]],
    );
    assert.deepEqual([r.json.minimumUsd, r.json.maximumUsd], [5, 100]);
    const payment = await pay(s, r.json);
    const before = await anvil.usdcBalance(BASE_PAY_TO);
    assert.equal((await postTopUp(b, payment, { noCsrf: true })).status, 403, 'CSRF as usual');
    const ok = await postTopUp(b, payment);
    assert.equal(ok.status, 200, ok.text);
    assert.deepEqual([ok.json.amountCreditedUsd, ok.json.balanceUsd, ok.json.network], [12.5, 12.5, 'eip155:8453']);
    assert.match(ok.json.transaction, /^0x[0-9a-f]{64}$/);
    assert.equal((await anvil.usdcBalance(BASE_PAY_TO)) - before, 12_500_000n);
    const replay = await postTopUp(b, payment);
    assert.equal(replay.status, 409);
    assert.equal(replay.json.code, 'PAYMENT_ALREADY_CREDITED');
    const account = await call(catalogue.account, '/account', { browser: b });
    assert.equal(account.json.balances.usd, 12.5);
    assert.match(account.json.topUp.howTo, /Top up with USDC on Base from this page/);
    assert.equal(account.json.topUp.wallet, true);
  });

  test('amounts under 5 USD or over the maximum, email users, and no session are refused', async () => {
    const b = await signIn(evmSigner());
    for (const [amount, code] of [
      ['4.99', 'AMOUNT_TOO_LOW'],
      ['100.01', 'AMOUNT_TOO_HIGH'],
      ['ten', 'INVALID_AMOUNT'],
    ]) {
      const r = await requirements(b, 'evm', amount);
      assert.equal(r.status, 400);
      assert.equal(r.json.code, code);
    }
    const up = await call(auth.signUp, '/auth/sign-up', { method: 'POST', body: { email: `e${Date.now()}@example.com`, password: 'correct horse battery' } });
    const email: Browser = { ip: '192.0.2.1', cookie: cookieFrom(up), csrf: up.json.csrfToken };
    assert.equal((await requirements(email, 'evm', '10')).json.code, 'FORBIDDEN');
    assert.equal((await postTopUp(email, { x402Version: 2 })).status, 403);
    assert.equal((await call(routes.walletTopUpRequirements, '/wallet/top-up/requirements?chain=evm&amount=10')).status, 401);
  });

  test('a payment signed by another wallet is refused before settlement (EVM and Solana)', async () => {
    const s = evmSigner();
    const other = evmSigner();
    await anvil.mint(addressOf(other), 20_000_000n);
    const b = await signIn(s);
    const payment = await pay(other, (await requirements(b, 'evm', '5')).json);
    const before = await anvil.usdcBalance(addressOf(other));
    const r = await postTopUp(b, payment);
    assert.equal(r.status, 403, r.text);
    assert.equal(r.json.code, 'X402_WALLET_MISMATCH');
    assert.equal(await anvil.usdcBalance(addressOf(other)), before, 'nothing moved');

    const sol = await solSigner();
    const solOther = await solSigner();
    await solana.fund(addressOf(solOther), 10_000_000n);
    const sb = await signIn(sol);
    const sr = await postTopUp(sb, await pay(solOther, (await requirements(sb, 'solana', '5')).json));
    assert.equal(sr.status, 403, sr.text);
    assert.equal(await solana.usdcBalance(addressOf(solOther)), 10_000_000n);
    // An EVM payment from a Solana session is another wallet too.
    assert.equal((await postTopUp(sb, payment)).json.code, 'X402_WALLET_MISMATCH');
  });

  test('Solana: a $6 payment settles on the Solana VM and credits the wallet once', async () => {
    const s = await solSigner();
    await solana.fund(addressOf(s), 20_000_000n);
    const b = await signIn(s);
    const r = await requirements(b, 'solana', '6');
    assert.equal(r.status, 200, r.text);
    const payment = await pay(s, r.json);
    const ok = await postTopUp(b, payment);
    assert.equal(ok.status, 200, ok.text);
    assert.deepEqual([ok.json.amountCreditedUsd, ok.json.balanceUsd], [6, 6]);
    assert.equal(await solana.usdcBalance(SOL_PAY_TO), 6_000_000n);
    assert.equal((await postTopUp(b, payment)).status, 409);
    const account = await call(catalogue.account, '/account', { browser: b });
    assert.match(account.json.topUp.howTo, /Top up with USDC on Solana from this page/);
  });

  test('Solana in the browser: the server builds the transaction for the session wallet, the wallet only signs it', async () => {
    const s = await solSigner();
    await solana.fund(addressOf(s), 20_000_000n);
    const b = await signIn(s);
    const r = await requirements(b, 'solana', '7');
    assert.equal(r.status, 200, r.text);
    const unsigned = getTransactionDecoder().decode(Buffer.from(r.json.transaction, 'base64'));
    // Two signers, both still empty: the fee payer (the facilitator) and the signed-in wallet.
    assert.deepEqual(Object.keys(unsigned.signatures).sort(), [solana.feePayer.address, addressOf(s)].sort());
    assert.ok(Object.values(unsigned.signatures).every((sig) => sig === null || sig.every((x) => x === 0)));

    // What a wallet's solana:signTransaction does: its signature over the message, the rest untouched.
    const signTx = async (wire: string) => {
      const tx = getTransactionDecoder().decode(Buffer.from(wire, 'base64'));
      const [sigs] = await (s as Extract<Signer, { kind: 'solana' }>).signer.signTransactions([tx as never]);
      return Buffer.from(getTransactionEncoder().encode({ ...tx, signatures: { ...tx.signatures, ...sigs } })).toString('base64');
    };
    const accepted = r.json.accepts[0];
    const payment = { x402Version: 2, resource: r.json.resource, accepted, payload: { transaction: await signTx(r.json.transaction) } };
    // Claiming more than the signed transfer moves is refused by verification: nothing settles, nothing is credited.
    const inflated = await postTopUp(b, { ...payment, accepted: { ...accepted, amount: '9000000' } });
    assert.equal(inflated.status, 402, inflated.text);
    assert.equal(inflated.json.code, 'PAYMENT_VERIFICATION_FAILED');
    const before = await solana.usdcBalance(SOL_PAY_TO);
    const ok = await postTopUp(b, payment);
    assert.equal(ok.status, 200, ok.text);
    assert.deepEqual([ok.json.amountCreditedUsd, ok.json.balanceUsd, ok.json.network], [7, 7, accepted.network]);
    assert.equal((await solana.usdcBalance(SOL_PAY_TO)) - before, 7_000_000n);

    // Only the session's own chain is offered: an EVM session gets no Solana transaction, and the reverse.
    assert.equal((await requirements(await signIn(evmSigner()), 'solana', '5')).json.code, 'X402_WALLET_MISMATCH');
    assert.equal((await requirements(b, 'evm', '5')).json.code, 'X402_WALLET_MISMATCH');
  });
});

describe('auto top-up', () => {
  const getAuto = (b: Browser, amount = '5') => call(routes.walletAutoTopUp, `/wallet/auto-top-up?amount=${amount}`, { browser: b });
  const putAuto = (b: Browser, body: unknown, o: { noCsrf?: boolean } = {}) =>
    call(routes.walletSetAutoTopUp, '/wallet/auto-top-up', { method: 'PUT', body, browser: b, ...o });

  test('a Base wallet signs authorizations in the app, opts in, sees them and the cap, and revokes; CSRF as usual', async () => {
    const s = evmSigner();
    await anvil.mint(addressOf(s), 50_000_000n);
    const b = await signIn(s);
    const r = await getAuto(b, '6');
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.mandate, null);
    assert.equal(r.json.toSign.accepts[0].amount, '6000000');
    const payments = [await pay(s, r.json.toSign), await pay(s, r.json.toSign)];
    const body = { thresholdUsd: 0, amountUsd: 6, payments };
    assert.equal((await putAuto(b, body, { noCsrf: true })).status, 403);
    const put = await putAuto(b, body);
    assert.equal(put.status, 200, put.text);
    assert.deepEqual([put.json.mandate.remainingUsd, put.json.authorizations.length], [12, 2]);
    assert.ok(!put.text.includes(String(payments[0].payload.signature)));
    const del = await call(routes.walletRevokeAutoTopUp, '/wallet/auto-top-up', { method: 'DELETE', browser: b });
    assert.equal(del.status, 200, del.text);
    assert.equal(del.json.discarded.length, 2);
    // As the form lists it (no amount): the state, nothing to sign, and the domain cancellations are signed under.
    const listed = await call(routes.walletAutoTopUp, '/wallet/auto-top-up', { browser: b });
    assert.equal(listed.status, 200, listed.text);
    assert.deepEqual(
      [listed.json.mandate, listed.json.toSign, listed.json.authorizations.map((a: { status: string }) => a.status)],
      [null, null, ['revoked', 'revoked']],
    );
    const d = listed.json.toCancel.domain;
    assert.deepEqual([d.chainId, d.verifyingContract.toLowerCase()], [8453, USDC.toLowerCase()]);
    assert.equal(listed.json.toCancel.authorizer, addressOf(s).toLowerCase());
    assert.equal(await anvil.usdcBalance(addressOf(s)), 50_000_000n, 'a threshold of 0 and a revoke: nothing moved');
  });

  test('a Solana wallet is told why auto top-up is Base only', async () => {
    const s = await solSigner();
    const b = await signIn(s);
    const r = await getAuto(b);
    assert.equal(r.json.toSign, null);
    const put = await putAuto(b, { thresholdUsd: 1, amountUsd: 5, payments: [{ x402Version: 2, payload: {} }] });
    assert.equal(put.status, 400);
    assert.match(put.json.error, /Base \(EVM\) wallet/);
  });
});
