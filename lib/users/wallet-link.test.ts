// One person, one balance, on SQLite and PostgreSQL: an email user links a wallet by signing the app's challenge,
// and then the wallet's sign-in (app and API principal) reaches the same user and account; a wallet whose own
// account holds anything is refused (nothing merged, nothing lost), an empty one is folded in; unlinking gives the
// wallet an empty account of its own without a second starting allowance; a wallet user adds an email and password
// and signs in either way to one account.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { LocalAccount } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { type Browser, caller, cookieFrom, ORIGIN } from '../../e2e/support/app-requests.ts';
import { startHarness } from '../../e2e/support/harness.ts';
import { createTestDatabase } from '../../e2e/support/pg.ts';
import { BACKENDS } from '../../e2e/support/stores.ts';
import { grantUsd } from '../billing/ledger.ts';
import { findWallet, walletPrincipal } from '../wallet/wallets.ts';
import type { WalletChallenge } from '../wire.ts';
import { createSession, SESSION_COOKIE } from './sessions.ts';
import { signUp } from './users.ts';

const password = 'correct horse battery';
let n = 0;

async function world(backend: (typeof BACKENDS)[number]) {
  let databaseUrl: string | undefined;
  let drop: (() => Promise<void>) | undefined;
  if (backend === 'postgres') ({ url: databaseUrl, drop } = await createTestDatabase());
  const h = await startHarness({
    app: true,
    databaseUrl,
    env: {
      LAGOON_PUBLIC_URL: ORIGIN,
      LAGOON_NEW_USER_DIEM: '1',
      ...(databaseUrl ? { LAGOON_SECRETS_KEY: crypto.randomBytes(32).toString('hex') } : {}),
    },
  });
  return { h, routes: h.app!.routes, call: caller(h.svc.store), close: async () => (await h.close(), await drop?.()) };
}

for (const backend of BACKENDS)
  describe(`linking a wallet and an email (${backend})`, () => {
    let w: Awaited<ReturnType<typeof world>>;
    before(async () => {
      w = await world(backend);
    });
    after(() => w?.close());

    const store = () => w.h.svc.store;
    async function emailUser(usd = 0) {
      const email = `link${++n}-${Date.now()}@example.test`;
      const { user } = await signUp(store(), { email, password });
      if (usd) await grantUsd(store(), user.accountId, usd * 1_000_000);
      const s = await createSession(store(), user.id);
      return { user, email, browser: { ip: '192.0.2.30', cookie: `${SESSION_COOKIE}=${s.token}`, csrf: s.csrfToken } as Browser };
    }
    async function signed(account: LocalAccount) {
      const c = await w.call(w.routes.walletChallenge, `/wallet/challenge?chain=evm&address=${account.address}`);
      assert.equal(c.status, 200, c.text);
      const ch = c.json as WalletChallenge;
      return { ...ch.fields, signature: await account.signMessage({ message: ch.message }) };
    }
    const link = async (account: LocalAccount, browser: Browser) =>
      w.call(w.routes.walletLink, '/account/wallet', { method: 'POST', body: { payload: await signed(account) }, browser });
    const unlink = (browser: Browser) => w.call(w.routes.walletUnlink, '/account/wallet', { method: 'DELETE', browser });
    async function walletSignIn(account: LocalAccount) {
      const r = await w.call(w.routes.walletSignIn, '/wallet/sign-in', { method: 'POST', body: { payload: await signed(account) } });
      assert.equal(r.status, 200, r.text);
      return { user: r.json.user, browser: { ip: '192.0.2.31', cookie: cookieFrom(r), csrf: r.json.csrfToken } as Browser };
    }
    const account = (id: string) =>
      store().get<{ usd: number | string; diem_daily: number | string; disabled_at: number | null }>(
        'SELECT usd, diem_daily, disabled_at FROM accounts WHERE id = $1',
        [id],
      );
    const apiAccountOf = async (a: LocalAccount) => {
      const wallet = await findWallet(store(), 'eip155', a.address);
      assert.ok(wallet);
      return (await walletPrincipal(store(), wallet, Date.now() + 60_000)).accountId;
    };

    test('an email user links a new wallet: the wallet signs in to the same user, account and balance', async () => {
      const u = await emailUser(3);
      const before = await account(u.user.accountId);
      const wallet = privateKeyToAccount(generatePrivateKey());
      const r = await link(wallet, u.browser);
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(r.json.user.linkedWallet, { address: wallet.address.toLowerCase(), chain: 'evm' });
      assert.equal(r.json.user.email, u.email, 'still an email user');
      const viaWallet = await walletSignIn(wallet);
      assert.equal(viaWallet.user.id, u.user.id);
      assert.equal(await apiAccountOf(wallet), u.user.accountId, "the wallet's API requests spend the same balance");
      const afterLink = await account(u.user.accountId);
      assert.equal(Number(afterLink?.usd), 3_000_000);
      assert.equal(Number(afterLink?.diem_daily), Number(before?.diem_daily), 'no second starting allowance');
      // Linking again is a no-op; another wallet needs an unlink first.
      assert.equal((await link(wallet, u.browser)).status, 200);
      const other = await link(privateKeyToAccount(generatePrivateKey()), u.browser);
      assert.equal(other.status, 400);
      assert.match(other.json.error, /unlink it first/);
    });

    test('a wallet whose own account holds money is refused, and its money stays', async () => {
      const wallet = privateKeyToAccount(generatePrivateKey());
      const own = await walletSignIn(wallet);
      const walletAccount = (await findWallet(store(), 'eip155', wallet.address))!.accountId;
      await grantUsd(store(), walletAccount, 5_000_000);
      const u = await emailUser();
      const r = await link(wallet, u.browser);
      assert.equal(r.status, 400, r.text);
      assert.match(r.json.error, /already has its own account with a USD balance/);
      assert.equal(Number((await account(walletAccount))?.usd), 5_000_000);
      assert.equal((await walletSignIn(wallet)).user.id, own.user.id, 'the wallet still signs in to its own account');
      assert.equal(await apiAccountOf(wallet), walletAccount);
    });

    test('an empty wallet account is folded in: its old sessions end, it is disabled, the wallet reaches the email user', async () => {
      const wallet = privateKeyToAccount(generatePrivateKey());
      const own = await walletSignIn(wallet);
      const walletAccount = (await findWallet(store(), 'eip155', wallet.address))!.accountId;
      assert.ok(Number((await account(walletAccount))?.diem_daily) > 0, 'the wallet newcomer got the allowance');
      const u = await emailUser(1);
      const r = await link(wallet, u.browser);
      assert.equal(r.status, 200, r.text);
      assert.equal((await w.call(w.routes.me, '/auth/me', { browser: own.browser })).status, 401, "the wallet-only user's session ended");
      assert.ok((await account(walletAccount))?.disabled_at, 'the emptied account is disabled');
      assert.equal((await walletSignIn(wallet)).user.id, u.user.id);
      assert.equal(await apiAccountOf(wallet), u.user.accountId);
    });

    test('a wallet linked to one email user cannot be linked to another; a wallet user cannot link one', async () => {
      const wallet = privateKeyToAccount(generatePrivateKey());
      const a = await emailUser();
      assert.equal((await link(wallet, a.browser)).status, 200);
      const b = await emailUser();
      const r = await link(wallet, b.browser);
      assert.equal(r.status, 400);
      assert.match(r.json.error, /linked to another account/);
      const walletOnly = await walletSignIn(privateKeyToAccount(generatePrivateKey()));
      const mine = await link(privateKeyToAccount(generatePrivateKey()), walletOnly.browser);
      assert.equal(mine.status, 400);
      assert.match(mine.json.error, /add an email and password instead/);
    });

    test('unlinking: the wallet gets an empty account of its own, no allowance; the money stays', async () => {
      const u = await emailUser(4);
      const wallet = privateKeyToAccount(generatePrivateKey());
      assert.equal((await link(wallet, u.browser)).status, 200);
      const r = await unlink(u.browser);
      assert.equal(r.status, 200, r.text);
      assert.equal(r.json.user.linkedWallet, undefined);
      assert.equal(Number((await account(u.user.accountId))?.usd), 4_000_000);
      const after = await walletSignIn(wallet);
      assert.notEqual(after.user.id, u.user.id);
      const own = await apiAccountOf(wallet);
      assert.notEqual(own, u.user.accountId);
      const ownAccount = await account(own);
      assert.equal(Number(ownAccount?.usd), 0);
      assert.equal(Number(ownAccount?.diem_daily), 0, 'no second starting allowance');
      assert.equal((await unlink(u.browser)).status, 404);
    });

    test('a wallet user adds an email and password: both sign in to one account', async () => {
      const wallet = privateKeyToAccount(generatePrivateKey());
      const own = await walletSignIn(wallet);
      const walletAccount = (await findWallet(store(), 'eip155', wallet.address))!.accountId;
      await grantUsd(store(), walletAccount, 2_000_000);
      const taken = await emailUser();
      const dup = await w.call(w.routes.addEmailLogin, '/account/email', { method: 'POST', body: { email: taken.email, password }, browser: own.browser });
      assert.equal(dup.status, 400);
      assert.equal(dup.json.param, 'email');
      const email = `added${++n}@example.test`;
      const r = await w.call(w.routes.addEmailLogin, '/account/email', { method: 'POST', body: { email, password }, browser: own.browser });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.json.user.email, email);
      assert.equal(r.json.user.wallet, undefined);
      assert.deepEqual(r.json.user.linkedWallet, { address: wallet.address.toLowerCase(), chain: 'evm' });
      assert.equal(r.json.verificationSent, false, 'no mail server configured');
      const byPassword = await w.call(w.routes.signIn, '/auth/sign-in', { method: 'POST', body: { email, password }, browser: { ip: '192.0.2.32' } });
      assert.equal(byPassword.status, 200, byPassword.text);
      assert.equal(byPassword.json.user.id, own.user.id);
      assert.equal((await walletSignIn(wallet)).user.id, own.user.id);
      assert.equal(await apiAccountOf(wallet), walletAccount);
      const acct = await account(walletAccount);
      assert.equal(Number(acct?.usd), 2_000_000);
      // Chats now run through a browser key of the same account.
      const me = await w.call(w.routes.account, '/account', { browser: { ...own.browser } });
      assert.equal(me.status, 200, me.text);
    });
  });
