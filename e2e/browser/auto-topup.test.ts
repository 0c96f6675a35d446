// Auto top-up in Chromium, against a local EVM chain (anvil), with a test wallet injected into the page (EIP-6963):
// the wallet user tops up $5, opts in (below $5 add $5, two signed authorizations: a $10 cap), and sees them listed
// with what remains of the cap; a chat's charge takes the balance below the threshold and the next authorization is
// settled on chain, shown on the statement as an automatic top-up. Turning it off discards the unused one and asks
// the wallet to sign its cancellation: declined, it stays listed as discarded with a button to cancel it; signed,
// the server submits it and the chain has voided the nonce. Ends with the key-material scan.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { type Anvil, CONTRACTS, FACILITATOR_KEY, startAnvil, USDC } from '../support/chains/anvil.ts';
import { screenshot } from '../support/browser.ts';
import { type AppRun, browserSkip, startApp } from './support/app.ts';
import { ask } from './support/chat.ts';
import { assertNoKeyMaterial } from './support/key-scan.ts';
import { openAccountLink } from './support/nav.ts';
import { textOf, until, waitForCount, waitForText } from './support/wait.ts';
import { injectTestWallets, signInWithTestWallet, type TestWallets } from './wallet-test-wallets.ts';

const skip = browserSkip();
const PAY_TO = privateKeyToAccount(generatePrivateKey()).address;

interface Authorization {
  nonce: `0x${string}`;
  status: string;
}

if (skip) test('browser: auto top-up', { skip }, () => {});
else
  describe('browser: auto top-up', () => {
    let anvil: Anvil;
    let run: AppRun;
    let page: Page;
    let wallets: TestWallets;

    const rows = () => page.getByTestId('auto-top-up-row');
    const rowsIn = (status: string) => page.locator(`[data-testid="auto-top-up-row"][data-status="${status}"]`);
    const listed = (): Promise<Authorization[]> =>
      page.evaluate(async () => (await (await fetch('/api/app/wallet/auto-top-up')).json()).authorizations as Authorization[]);
    const openBilling = async () => {
      await openAccountLink(page, 'billing-link');
      await page.getByTestId('auto-top-up').waitFor();
    };

    before(async () => {
      anvil = await startAnvil();
      run = await startApp({
        // No daily DIEM allowance: the chat is charged in USD, the balance auto top-up watches.
        env: {
          LAGOON_X402_BASE_RPC_URL: anvil.rpcUrl,
          LAGOON_X402_BASE_PAY_TO: PAY_TO,
          LAGOON_X402_BASE_FACILITATOR_KEY: FACILITATOR_KEY,
          LAGOON_NEW_USER_DIEM: '0',
        },
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

    test('opt in: two signed authorizations of $5 below $5, listed with what remains of the cap', async () => {
      await openBilling();
      await page.getByRole('button', { name: '$5', exact: true }).click();
      await page.getByTestId('top-up-submit').click();
      await waitForText(page.getByTestId('balance-usd'), /^\$5\.00$/, 30_000);

      await page.getByTestId('auto-top-up-threshold').fill('5');
      await page.getByTestId('auto-top-up-amount').fill('5');
      await page.getByTestId('auto-top-up-count').fill('2');
      await waitForText(page.getByTestId('auto-top-up-submit'), /Sign 2 top-ups \(\$10\.00 in all\)/);
      await page.getByTestId('auto-top-up-submit').click();
      await waitForText(
        page.getByTestId('auto-top-up-status'),
        /\$5\.00 whenever the balance falls below \$5\.00\. \$10\.00 of your signed top-ups are left/,
        30_000,
      );
      await waitForCount(rows(), 2);
      for (const row of await rows().all()) assert.match(await textOf(row), /\$5\.00\s+Ready/);
      // The balance is at the threshold, not below it: nothing was taken yet.
      assert.equal(await anvil.usdcBalance(PAY_TO), 5_000_000n);
      await screenshot(page, 'auto-top-up-on');
    });

    test('a charge that takes the balance below the threshold: the next authorization is settled and on the statement', async () => {
      await page.goto('/');
      assert.ok((await ask(page, 'Hello from a wallet with auto top-up')).length > 0);
      await until(async () => (await anvil.usdcBalance(PAY_TO)) === 10_000_000n, 'the auto top-up to settle on chain', 30_000);
      await openBilling();
      const auto = page.locator('[data-testid="statement-row"][data-kind="topup"]').filter({ hasText: 'Automatic USDC top-up' });
      await until(
        async () => {
          if ((await auto.count()) === 1) return true;
          await page.reload();
          await page.getByTestId('auto-top-up').waitFor();
          return false;
        },
        'the automatic top-up on the statement',
        30_000,
      );
      const text = await textOf(auto);
      assert.match(text, /on Base/);
      assert.match(text, /\+\$5\.00/);
      assert.match(text, /Transaction 0x[0-9a-f]{6}/);
      // The list: one paid, one ready; $5 of the cap left.
      await waitForCount(rowsIn('settled'), 1);
      await waitForCount(rowsIn('ready'), 1);
      assert.match(await textOf(rowsIn('settled')), /Paid/);
      await waitForText(page.getByTestId('auto-top-up-status'), /\$5\.00 of your signed top-ups are left/);
      const usd = await page.evaluate(async () => (await (await fetch('/api/app/account')).json()).balances.usd as number);
      assert.ok(usd > 9.9 && usd < 10, `balance ${usd}: $5, less the chat, plus $5`);
      await screenshot(page, 'auto-top-up-statement');
    });

    test('turn off: the unused authorization is discarded and, once the wallet signs, cancelled on chain', async () => {
      const unused = (await listed()).find((a) => a.status === 'ready');
      assert.ok(unused, 'one authorization is still unused');
      const voided = () =>
        anvil.publicClient.readContract({
          address: USDC,
          abi: CONTRACTS.TestUSDC.abi,
          functionName: 'authorizationState',
          args: [wallets.evm.address, unused.nonce],
        });

      // The wallet declines the cancellation: the authorization is discarded here, still valid on chain.
      wallets.reject.next = true;
      await page.getByTestId('auto-top-up-revoke').click();
      await waitForText(page.getByTestId('auto-top-up-revoked'), /1 unused top-up was discarded/);
      await waitForText(page.getByTestId('auto-top-up-error'), /declined the cancellation/);
      await waitForCount(rowsIn('revoked'), 1);
      assert.equal(await voided(), false);
      assert.equal(await page.getByTestId('auto-top-up-status').count(), 0, 'no mandate any more');

      // Asked again, the wallet signs; the server submits the cancellation and pays its gas.
      await page.getByTestId('auto-top-up-cancel').click();
      await waitForText(page.getByTestId('auto-top-up-cancelled'), /1 discarded top-up is now cancelled on chain/, 30_000);
      await waitForCount(rowsIn('cancelled'), 1);
      assert.match(await textOf(rowsIn('cancelled')), /Cancelled on chain/);
      assert.equal(await voided(), true, 'the chain has voided the nonce');
      assert.equal(await page.getByTestId('auto-top-up-cancel').count(), 0);
      assert.deepEqual((await listed()).map((a) => a.status).sort(), ['cancelled', 'settled']);
      // The wallet kept what was never taken: 50 − 5 (top-up) − 5 (auto top-up).
      assert.equal(await anvil.usdcBalance(wallets.evm.address), 40_000_000n);
      await screenshot(page, 'auto-top-up-off');
    });

    test('no key material reached the browser', async () => {
      await assertNoKeyMaterial(run);
    });
  });
