// A wallet user's billing page in Chromium, against a local EVM chain (anvil): signed in with a test wallet
// (EIP-6963), they top up $10 in USDC from /billing itself (the account page's flow, settled on chain); the balance
// and the statement's top-up row follow, the row naming its network and transaction; the key page offers INFERENCE
// keys only. Ends with the key-material scan.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { type Anvil, FACILITATOR_KEY, startAnvil } from '../support/chains/anvil.ts';
import { screenshot } from '../support/browser.ts';
import { type AppRun, browserSkip, startApp } from './support/app.ts';
import { assertNoKeyMaterial } from './support/key-scan.ts';
import { textOf, waitForText } from './support/wait.ts';
import { injectTestWallets, signInWithTestWallet, type TestWallets } from './wallet-test-wallets.ts';
import { openAccountLink } from './support/nav.ts';

const skip = browserSkip();
const PAY_TO = privateKeyToAccount(generatePrivateKey()).address;

if (skip) test('browser: billing for a wallet user', { skip }, () => {});
else
  describe('browser: billing for a wallet user', () => {
    let anvil: Anvil;
    let run: AppRun;
    let page: Page;
    let wallets: TestWallets;

    before(async () => {
      anvil = await startAnvil();
      run = await startApp({
        env: { LAGOON_X402_BASE_RPC_URL: anvil.rpcUrl, LAGOON_X402_BASE_PAY_TO: PAY_TO, LAGOON_X402_BASE_FACILITATOR_KEY: FACILITATOR_KEY },
        publicUrl: (origin) => origin,
      });
      const opened = await run.newPage();
      page = opened.page;
      wallets = await injectTestWallets(opened.rec.context, privateKeyToAccount(generatePrivateKey()));
      await anvil.mint(wallets.evm.address, 50_000_000n);
      await signInWithTestWallet(page);
    });
    after(async () => {
      await run?.close();
      await anvil?.close();
    });

    test('top up $10 from /billing: the balance and the statement follow', async () => {
      await openAccountLink(page, 'billing-link');
      await page.getByTestId('billing-page').waitFor();
      await waitForText(page.getByTestId('balance-usd'), /^\$0\.00$/);
      await page.getByTestId('wallet-top-up').waitFor();
      await page.getByRole('button', { name: '$10', exact: true }).click();
      await page.getByTestId('top-up-submit').click();
      await waitForText(page.getByTestId('top-up-done'), /Added \$10\.00/, 30_000);
      await waitForText(page.getByTestId('balance-usd'), /^\$10\.00$/);
      const row = page.locator('[data-testid="statement-row"][data-kind="topup"]');
      await row.waitFor();
      const text = await textOf(row);
      assert.match(text, /USDC top-up on Base/);
      assert.match(text, /\+\$10\.00/);
      assert.match(text, /Transaction 0x[0-9a-f]{6}/);
      assert.equal(await page.getByTestId('account-tabs').getByTestId('operator-link').count(), 0);
      await page.getByTestId('user-menu').click();
      await page.getByTestId('account-link').waitFor();
      assert.equal(await page.getByTestId('operator-menu-link').count(), 0);
      await page.keyboard.press('Escape');
      await screenshot(page, 'billing-wallet');
    });

    test('a wallet session creates INFERENCE keys only', async () => {
      await openAccountLink(page, 'keys-link');
      await page.getByTestId('create-key').waitFor();
      assert.equal(await page.getByTestId('key-type-admin').isDisabled(), true);
      await waitForText(page.getByTestId('create-key'), /Only an account signed in with email can create admin keys/);
    });

    test('no key material reached the browser', async () => {
      await assertNoKeyMaterial(run);
    });
  });
