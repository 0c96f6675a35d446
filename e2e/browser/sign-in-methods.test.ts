// Settings' "Sign-in methods" in Chromium: an email user links the injected test wallet (the sign-in page's wallet
// flow, signed in the wallet), signing in with that wallet then reaches the same user, and unlinking gives the wallet
// an empty account of its own with no second starting allowance; a wallet newcomer adds an email and password to the
// same account (no starting grant again); and the last way in is never offered for removal, nor removed by the server.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { screenshot, seriousA11yViolations } from '../support/browser.ts';
import { type AppRun, browserSkip, PASSWORD, startApp } from './support/app.ts';
import { until, waitForAttribute, waitForText } from './support/wait.ts';
import { injectTestWallets } from './wallet-test-wallets.ts';

const skip = browserSkip();

interface Me {
  id: string;
  email: string | null;
  wallet?: { address: string };
  linkedWallet?: { address: string };
}
const meOf = async (page: Page): Promise<Me> => (await (await page.request.get('/api/app/auth/me')).json()).user;

if (skip) test('browser: sign-in methods', { skip }, () => {});
else
  describe('browser: sign-in methods', () => {
    let run: AppRun;

    before(async () => {
      // A one-off USD grant for newcomers too, so a second grant would show in the balance and the grants table.
      run = await startApp({ env: { LAGOON_NEW_USER_USD: '2' }, publicUrl: (origin) => origin });
    });
    after(async () => {
      await run?.close();
    });

    const grantsOf = async (accountId: string) =>
      Number((await run.h.svc.store.get<{ n: number | string }>('SELECT COUNT(*) AS n FROM credit_grants WHERE account_id = $1', [accountId]))?.n);
    const diemDailyOf = async (accountId: string) =>
      Number((await run.h.svc.store.get<{ d: number | string }>('SELECT diem_daily AS d FROM accounts WHERE id = $1', [accountId]))?.d);
    const accountOf = async (userId: string) =>
      (await run.h.svc.store.get<{ account_id: string }>('SELECT account_id FROM users WHERE id = $1', [userId]))!.account_id;

    /** A fresh browser holding `wallet`, signed in with it on the sign-in page. */
    async function walletSignIn(wallet: PrivateKeyAccount): Promise<Page> {
      const { page, rec } = await run.newPage();
      await injectTestWallets(rec.context, wallet);
      await page.goto('/sign-in');
      await page.getByTestId('wallet-continue').click();
      await page.getByTestId('wallet-option').filter({ hasText: 'E2E Test Wallet' }).click();
      await until(() => new URL(page.url()).pathname === '/', 'the chat page after the wallet sign-in');
      return page;
    }

    /** An email user's browser, holding `wallet`, on /account. */
    async function emailUserWithWallet(wallet: PrivateKeyAccount) {
      const u = await run.newUser({ displayName: 'Linker' });
      const { page, rec } = await run.newPage();
      await injectTestWallets(rec.context, wallet);
      await run.signIn(page, u.email, '/account');
      await page.getByTestId('sign-in-methods').waitFor();
      return { u, page };
    }

    async function linkWallet(page: Page) {
      await page.getByTestId('wallet-link-start').click();
      await page.getByTestId('wallet-option').filter({ hasText: 'E2E Test Wallet' }).click();
      await waitForText(page.getByTestId('sign-in-methods-done'), /Wallet linked/);
    }

    test('an email user links a wallet: the wallet then signs in to the same user; unlinked, it is a stranger with no second allowance', async () => {
      const wallet = privateKeyToAccount(generatePrivateKey());
      const { u, page } = await emailUserWithWallet(wallet);
      await waitForText(page.getByTestId('method-email'), new RegExp(`${u.email.replace(/[.]/g, '\\.')}, with a password`));
      await waitForText(page.getByTestId('method-wallet'), /Wallet none/);
      await waitForText(page.getByTestId('method-sso'), /not offered on this server/);
      assert.equal(await page.getByTestId('sso-link').count(), 0, 'no single sign-on button without a provider');
      const grantsBefore = await grantsOf(u.user.accountId);
      const diemBefore = await diemDailyOf(u.user.accountId);

      await linkWallet(page);
      await waitForAttribute(page.getByTestId('method-wallet'), 'data-address', wallet.address.toLowerCase());
      await waitForText(page.getByTestId('method-wallet'), /Base wallet 0x[0-9a-f]{40}, linked/);
      assert.equal(await page.getByTestId('wallet-unlink').isEnabled(), true);
      assert.deepEqual((await meOf(page)).linkedWallet?.address, wallet.address.toLowerCase());
      assert.deepEqual(await seriousA11yViolations(page), []);
      await screenshot(page, 'sign-in-methods-linked');

      // The wallet's own sign-in now opens this user and account: one person, one balance.
      const viaWallet = await walletSignIn(wallet);
      const me = await meOf(viaWallet);
      assert.equal(me.id, u.user.id);
      assert.equal(me.email, u.email);
      assert.equal(await grantsOf(u.user.accountId), grantsBefore, 'linking granted nothing');
      assert.equal(await diemDailyOf(u.user.accountId), diemBefore);

      await page.reload();
      await page.getByTestId('wallet-unlink').click();
      await waitForText(page.getByTestId('sign-in-methods-done'), /Wallet unlinked/);
      await waitForAttribute(page.getByTestId('method-wallet'), 'data-address', '');
      assert.equal((await meOf(page)).linkedWallet, undefined);

      // Signed in with the wallet again: its own empty account, not a newcomer's (no allowance, no grant a second time).
      const stranger = await walletSignIn(wallet);
      const other = await meOf(stranger);
      assert.notEqual(other.id, u.user.id);
      assert.equal(other.email, null);
      const otherAccount = await accountOf(other.id);
      assert.notEqual(otherAccount, u.user.accountId);
      assert.equal(await diemDailyOf(otherAccount), 0);
      assert.equal(await grantsOf(otherAccount), 0);
      const summary = await (await stranger.request.get('/api/app/account')).json();
      assert.equal(summary.balances.usd, 0);
      assert.equal(summary.balances.diem, 0);
    });

    test('a wallet newcomer adds an email and password: one account, both ways in, the starting credit not given again', async () => {
      const wallet = privateKeyToAccount(generatePrivateKey());
      const page = await walletSignIn(wallet);
      const before = await meOf(page);
      const accountId = await accountOf(before.id);
      assert.equal(await diemDailyOf(accountId), 1_000_000, 'a wallet newcomer has the daily DIEM allowance');
      const grants = await grantsOf(accountId);

      await page.goto('/account');
      await waitForText(page.getByTestId('method-wallet'), /you signed up with it/);
      assert.equal(await page.getByTestId('wallet-unlink').count(), 0, 'the wallet a user signed up with is not offered for unlinking');
      const email = `wallet-adds-${process.pid}@example.test`;
      await page.getByTestId('add-email').fill(email);
      await page.getByTestId('add-email-password').fill(PASSWORD);
      await page.getByTestId('add-email-save').click();
      await waitForText(page.getByTestId('sign-in-methods-done'), /Email added/);
      await waitForText(page.getByTestId('method-email'), new RegExp(`${email.replace(/[.]/g, '\\.')}, with a password`));
      await waitForText(page.getByTestId('method-wallet'), /linked/);
      assert.equal(await page.getByTestId('add-email-form').count(), 0);

      const after = await meOf(page);
      assert.equal(after.id, before.id);
      assert.equal(after.email, email);
      assert.equal(await accountOf(after.id), accountId);
      assert.equal(await grantsOf(accountId), grants, 'no starting grant for the added email');
      assert.equal(await diemDailyOf(accountId), 1_000_000, 'the allowance is the same one, not doubled');

      // Both ways in reach this user.
      const { page: byEmail } = await run.newPage();
      await run.signIn(byEmail, email, '/account');
      assert.equal((await meOf(byEmail)).id, before.id);
      assert.equal((await meOf(await walletSignIn(wallet))).id, before.id);
    });

    test('the last way in is never removed: unlinking is disabled with the reason, and the server refuses it', async () => {
      const wallet = privateKeyToAccount(generatePrivateKey());
      const { u, page } = await emailUserWithWallet(wallet);
      await linkWallet(page);
      // No password any more (as a single sign-on newcomer has none) and no other method: the wallet is all that is left.
      await run.h.svc.store.run("UPDATE users SET password_hash = '' WHERE id = $1", [u.user.id]);
      await page.reload();
      await waitForText(page.getByTestId('method-email'), /no password set/);
      await page.getByTestId('wallet-unlink-why').waitFor();
      assert.equal(await page.getByTestId('wallet-unlink').isDisabled(), true);
      const refused = await page.evaluate(async () => {
        const { csrfToken } = await (await fetch('/api/app/auth/me')).json();
        const res = await fetch('/api/app/account/wallet', { method: 'DELETE', headers: { 'x-csrf-token': csrfToken } });
        return { status: res.status, body: await res.json() };
      });
      assert.equal(refused.status, 400);
      assert.match(refused.body.error, /only way to sign in/);
      assert.equal((await meOf(page)).linkedWallet?.address, wallet.address.toLowerCase(), 'still linked');
    });
  });
