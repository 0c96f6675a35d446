// Wallet users in Chromium, against local chains: a test EVM wallet (EIP-6963) and a test Solana wallet
// (wallet-standard) are injected into the page with their keys in this process. Sign in with the EVM wallet, top up
// $10 in USDC (settled on anvil), a refused signature shows its error, chat, and the balance goes down; the same with
// the Solana wallet (the server builds the transfer, the wallet signs it, settled on LiteSVM through the RPC shim).
// Ends with the key-material scan over everything the browser received.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { base58 } from '@scure/base';
import { type Anvil, FACILITATOR_KEY, startAnvil } from '../support/chains/anvil.ts';
import { type Solana, solanaKeyPair, startSolana } from '../support/chains/solana.ts';
import { screenshot } from '../support/browser.ts';
import { type AppRun, browserSkip, startApp } from './support/app.ts';
import { ask } from './support/chat.ts';
import { assertNoKeyMaterial } from './support/key-scan.ts';
import { until, waitForText } from './support/wait.ts';
import { injectTestWallets, type TestWallets } from './wallet-test-wallets.ts';

const skip = browserSkip();
const PAY_TO = privateKeyToAccount(generatePrivateKey()).address;
const SOL_PAY_TO = solanaKeyPair().address;
const path = (page: Page) => new URL(page.url()).pathname;
/** USD and DIEM together: a wallet newcomer has the daily DIEM allowance too, and DIEM is spent before USD. */
const accountCredit = (page: Page) =>
  page.evaluate(async () => {
    const b = (await (await fetch('/api/app/account')).json()).balances as { usd: number; diem: number };
    return b.usd + b.diem;
  });

if (skip) test('browser: wallet users', { skip }, () => {});
else
  describe('browser: wallet users', () => {
    let anvil: Anvil;
    let solana: Solana;
    let run: AppRun;
    let page: Page;
    let wallets: TestWallets;

    before(async () => {
      [anvil, solana] = await Promise.all([startAnvil(), startSolana()]);
      await solana.fund(SOL_PAY_TO, 0n);
      run = await startApp({
        env: {
          LAGOON_X402_BASE_RPC_URL: anvil.rpcUrl,
          LAGOON_X402_BASE_PAY_TO: PAY_TO,
          LAGOON_X402_BASE_FACILITATOR_KEY: FACILITATOR_KEY,
          LAGOON_X402_SOLANA_RPC_URL: solana.rpcUrl,
          LAGOON_X402_SOLANA_PAY_TO: SOL_PAY_TO,
          LAGOON_X402_SOLANA_FEE_PAYER_KEY: base58.encode(solana.feePayer.secret),
        },
        // Sign-in texts are bound to the origin the browser reaches (a random port here; LAGOON_PUBLIC_URL in production).
        publicUrl: (origin) => origin,
      });
      const opened = await run.newPage();
      page = opened.page;
      wallets = await injectTestWallets(opened.rec.context, privateKeyToAccount(generatePrivateKey()));
      await anvil.mint(wallets.evm.address, 50_000_000n);
    });
    after(async () => {
      await run?.close();
      await Promise.all([anvil?.close(), solana?.close()]);
    });

    test('sign in with an EVM wallet: discovered over EIP-6963, a refused signature is explained, then signed', async () => {
      await page.goto('/sign-in');
      await page.getByTestId('wallet-continue').click();
      const option = page.getByTestId('wallet-option').filter({ hasText: 'E2E Test Wallet' });
      await option.waitFor();
      assert.equal(await page.getByTestId('wallet-option').filter({ hasText: 'E2E Solana Wallet' }).count(), 1, 'the Solana wallet is listed too');
      await screenshot(page, 'wallet-sign-in');
      wallets.reject.next = true;
      await option.click();
      await waitForText(page.getByTestId('wallet-error'), /declined the signature/);
      await option.click();
      await until(() => path(page) === '/', 'the chat page after signing in');
      const me = await page.evaluate(async () => (await (await fetch('/api/app/auth/me')).json()).user);
      assert.deepEqual(me.wallet, { address: wallets.evm.address.toLowerCase(), chain: 'evm' });
      assert.equal(me.email, null);
    });

    test('top up $10 from the wallet: settled on the local chain, the balance updates', async () => {
      await page.goto('/account');
      await page.getByTestId('wallet-top-up').waitFor();
      await waitForText(page.getByTestId('balance-usd'), /^\$0\.00$/);
      await page.getByTestId('top-up-amount').fill('4');
      await page.getByTestId('top-up-submit').click();
      await waitForText(page.locator('#top-up-amount-error'), /smallest top-up is 5 USD/);

      await page.getByRole('button', { name: '$10', exact: true }).click();
      wallets.reject.next = true;
      await page.getByTestId('top-up-submit').click();
      await waitForText(page.getByTestId('top-up-error'), /declined the payment/);

      const before = await anvil.usdcBalance(PAY_TO);
      await page.getByTestId('top-up-submit').click();
      await waitForText(page.getByTestId('top-up-done'), /Added \$10\.00/, 30_000);
      await waitForText(page.getByTestId('balance-usd'), /^\$10\.00$/);
      assert.equal((await anvil.usdcBalance(PAY_TO)) - before, 10_000_000n);
      assert.equal(await anvil.usdcBalance(wallets.evm.address), 40_000_000n);
      await screenshot(page, 'wallet-top-up');
    });

    test('chat as the wallet user: the answer is paid from the wallet’s balance', async () => {
      await page.goto('/');
      const before = await accountCredit(page);
      const answer = await ask(page, 'Hello from a wallet');
      assert.ok(answer.length > 0);
      await page.goto('/account');
      await until(async () => (await accountCredit(page)) < before, 'the wallet balance to go down after the chat');
    });

    test('a Solana wallet (wallet-standard): sign in, top up $5 settled on the Solana VM, chat, the balance goes down', async () => {
      const { page: sol, rec } = await run.newPage();
      const injected = await injectTestWallets(rec.context, privateKeyToAccount(generatePrivateKey()));
      await solana.fund(injected.solana.address, 20_000_000n);
      await sol.goto('/sign-in');
      await sol.getByTestId('wallet-continue').click();
      await sol.getByTestId('wallet-option').filter({ hasText: 'E2E Solana Wallet' }).click();
      await until(() => path(sol) === '/', 'the chat page after signing in with Solana');
      const me = await sol.evaluate(async () => (await (await fetch('/api/app/auth/me')).json()).user);
      assert.deepEqual(me.wallet, { address: injected.solana.address, chain: 'solana' });

      await sol.goto('/account');
      await waitForText(sol.getByTestId('wallet-top-up'), /on Solana/);
      await sol.getByRole('button', { name: '$5', exact: true }).click();
      await sol.getByTestId('top-up-submit').click();
      await waitForText(sol.getByTestId('top-up-done'), /Added \$5\.00/, 30_000);
      await waitForText(sol.getByTestId('balance-usd'), /^\$5\.00$/);
      assert.equal(await solana.usdcBalance(SOL_PAY_TO), 5_000_000n);
      assert.equal(await solana.usdcBalance(injected.solana.address), 15_000_000n);
      await screenshot(sol, 'wallet-top-up-solana');

      await sol.goto('/');
      const before = await accountCredit(sol);
      assert.ok((await ask(sol, 'Hello from a Solana wallet')).length > 0);
      await until(async () => (await accountCredit(sol)) < before, 'the Solana wallet balance to go down after the chat');
    });

    test('no key material reached the browser', async () => {
      await assertNoKeyMaterial(run);
    });
  });
