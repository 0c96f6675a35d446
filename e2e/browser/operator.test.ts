// The operator in Chromium: the first user opens /operator from the sidebar, finds another user's account, grants it
// credit with a note (the user sees it on their balance and statement; the audit log names the operator), disables
// it after a confirmation (the user's page says so, their API key is refused) and enables it again. Another user has
// no operator link and is told the page is the operator's. Then axe in both themes and a 375 px phone. Ends with the
// key-material scan.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { screenshot, seriousA11yViolations } from '../support/browser.ts';
import { post } from '../support/harness.ts';
import { type AppRun, browserSkip, startApp, type TestUser } from './support/app.ts';
import { assertNoKeyMaterial } from './support/key-scan.ts';
import { textOf, until, waitForAttribute, waitForText } from './support/wait.ts';
import { openAccountLink } from './support/nav.ts';

const skip = browserSkip();
const chat = (run: AppRun, key: string) =>
  post(run.h, '/chat/completions', key, { model: 'scripted-model', messages: [{ role: 'user', content: 'hi [[reply:ok]]' }] });

if (skip) test('browser: operator', { skip }, () => {});
else
  describe('browser: operator', () => {
    let run: AppRun;
    let op: TestUser;
    let bob: TestUser;
    let page: Page;
    let bobPage: Page;

    before(async () => {
      run = await startApp();
      op = await run.newUser({ usd: 1 });
      bob = await run.newUser({ displayName: 'Bob' });
      ({ page } = await run.newPage());
      ({ page: bobPage } = await run.newPage());
      await run.signIn(page, op.email, '/');
      await run.signIn(bobPage, bob.email, '/billing');
      await page.getByTestId('composer-input').waitFor();
    });
    after(() => run?.close());

    const bobRow = () => page.locator(`[data-testid="account-row"][data-id="${bob.user.accountId}"]`);

    test('the operator grants credit from /operator; the user sees it; the audit log names the operator', async () => {
      await openAccountLink(page, 'operator-link');
      await page.getByTestId('operator-page').waitFor();
      await page.getByTestId('operator-search').fill(bob.email);
      await until(async () => (await page.getByTestId('account-row').count()) === 1, 'the search finds bob alone');
      await bobRow().getByTestId('manage-account').click();
      const dialog = page.getByTestId('manage-dialog');
      await dialog.getByTestId('grant-usd').fill('7.5');
      await dialog.getByTestId('grant-note').fill('welcome to the reef');
      await dialog.getByTestId('grant-submit').click();
      await waitForText(dialog.getByTestId('manage-done'), /Granted \$7\.50\. The balance is now \$7\.50\./);
      await screenshot(page, 'operator-manage');
      await dialog.getByRole('button', { name: 'Close' }).click();
      await waitForText(bobRow().getByTestId('account-usd'), '$7.50');
      await waitForText(page.getByTestId('audit-row').first(), new RegExp(`${op.email}[\\s\\S]*Granted credit[\\s\\S]*\\$7\\.50 · welcome to the reef`));

      await bobPage.reload();
      await waitForText(bobPage.getByTestId('balance-usd'), '$7.50');
      await waitForText(bobPage.locator('[data-testid="statement-row"][data-kind="grant"]').first(), /welcome to the reef[\s\S]*\+\$7\.50/);
      assert.equal(await bobPage.getByTestId('account-tabs').getByTestId('operator-link').count(), 0, 'no operator tab for other users');
      await bobPage.getByTestId('user-menu').click();
      await bobPage.getByTestId('account-link').waitFor();
      assert.equal(await bobPage.getByTestId('operator-menu-link').count(), 0, 'no operator link for other users');
      await bobPage.keyboard.press('Escape');
      await bobPage.goto('/operator');
      await bobPage.getByTestId('operator-only').waitFor();
    });

    test('disabling refuses the user’s session and key at once; enabling restores them', async () => {
      assert.equal((await chat(run, bob.apiKey)).status, 200);
      await bobRow().getByTestId('manage-account').click();
      const dialog = page.getByTestId('manage-dialog');
      await dialog.getByTestId('toggle-disabled').click();
      await page.getByTestId('confirm-dialog').getByTestId('confirm-button').click();
      await waitForText(dialog.getByTestId('manage-done'), 'The account is disabled.');
      await dialog.getByRole('button', { name: 'Close' }).click();
      await waitForAttribute(bobRow(), 'data-disabled', 'true');

      const refused = await chat(run, bob.apiKey);
      assert.equal(refused.status, 403);
      assert.equal(refused.json.error, 'This account has been disabled by the operator');
      await bobPage.goto('/billing');
      await waitForText(bobPage.locator('main'), /This account has been disabled by the operator/);

      await bobRow().getByTestId('manage-account').click();
      await dialog.getByTestId('toggle-disabled').click();
      await page.getByTestId('confirm-dialog').getByTestId('confirm-button').click();
      await waitForText(dialog.getByTestId('manage-done'), 'The account is enabled.');
      await dialog.getByRole('button', { name: 'Close' }).click();
      await waitForAttribute(bobRow(), 'data-disabled', 'false');
      assert.equal((await chat(run, bob.apiKey)).status, 200);
      await bobPage.goto('/billing');
      await bobPage.getByTestId('balance-usd').waitFor();
      const actions = await page.getByTestId('audit-row').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-action')));
      assert.deepEqual(actions.slice(0, 3), ['enable', 'disable', 'grant']);
    });

    test('axe: no serious or critical violation on /operator (and its dialog), light and dark', async () => {
      const found: string[] = [];
      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        await page.goto('/operator');
        await page.getByTestId('audit-row').first().waitFor();
        for (const v of await seriousA11yViolations(page)) found.push(`/operator (${scheme}): ${v}`);
        await bobRow().getByTestId('manage-account').click();
        await page.getByTestId('grant-usd').waitFor();
        for (const v of await seriousA11yViolations(page)) found.push(`/operator dialog (${scheme}): ${v}`);
        await page.keyboard.press('Escape');
      }
      await page.emulateMedia({ colorScheme: 'light' });
      assert.deepEqual(found, []);
    });

    test('a 375 px phone: the operator page fits without sideways scrolling', async () => {
      const { page: phone } = await run.newPage({ viewport: { width: 375, height: 740 } });
      await run.signIn(phone, op.email, '/operator');
      await phone.getByTestId('account-row').first().waitFor();
      const overflow = await phone.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(overflow <= 0, `the page scrolls sideways by ${overflow}px`);
      await screenshot(phone, 'operator-mobile');
      await phone.context().close();
    });

    test('no key material in any response this file received, nor in the client bundles', async () => {
      const scanned = await assertNoKeyMaterial(run, [op.apiKey, bob.apiKey]);
      assert.ok(scanned.responses > 20, `scanned ${scanned.responses} responses`);
      assert.ok(!(await textOf(page.locator('body'))).includes(bob.apiKey));
    });
  });
