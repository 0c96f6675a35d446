// The usage page in Chromium: a user chats twice, follows Account then its Usage tab, and finds the totals, the
// model's row, the day table and the recent requests, with no spend chart (billing has the one) and no keys or
// limits repeated; the Rate limits and API keys tabs beside it show a meter below its limit and the keys (metadata
// only); the period switcher; the empty state for a new user; the /account link; 375 px without sideways
// scrolling; axe in both themes. Ends with the key-material scan over everything the browser received.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { screenshot, seriousA11yViolations } from '../support/browser.ts';
import { type AppRun, browserSkip, startApp, type TestUser } from './support/app.ts';
import { ask } from './support/chat.ts';
import { assertNoKeyMaterial } from './support/key-scan.ts';
import { textOf, until, waitForCount, waitForText } from './support/wait.ts';
import { openAccountLink } from './support/nav.ts';

const skip = browserSkip();
const path = (page: Page) => new URL(page.url()).pathname;
const modelRow = (page: Page) => page.locator('[data-testid="usage-model-row"][data-model="scripted-model"]');
const meter = (page: Page, kind: 'rate-requests' | 'rate-tokens') =>
  page.locator(`[data-testid="limit-model"][data-model="scripted-model"] [data-testid="${kind}"]`);

if (skip) test('browser: usage dashboard', { skip }, () => {});
else
  describe('browser: usage dashboard', () => {
    let run: AppRun;
    let page: Page;
    let user: TestUser;

    before(async () => {
      run = await startApp();
      user = await run.newUser({ usd: 5 });
      ({ page } = await run.newPage());
      await run.signIn(page, user.email);
      await page.getByTestId('composer-input').waitFor();
    });
    after(() => run?.close());

    test('after two chats: totals, the model row, recent requests, a meter below its limit, and the keys', async () => {
      assert.equal(await ask(page, 'Name a reef fish [[reply:The clownfish.]]'), 'The clownfish.');
      assert.equal(await ask(page, 'And a big one? [[reply:The whale shark.]]'), 'The whale shark.');
      await openAccountLink(page, 'usage-link');
      await until(() => path(page) === '/usage', 'the usage page from the sidebar');
      await page.getByTestId('usage-page').waitFor();

      await waitForText(page.getByTestId('usage-total-requests'), /^2$/);
      // Fractions of a cent are shown as such, not rounded to a free-looking "$0.00".
      const usd = await textOf(page.getByTestId('usage-total-usd'));
      assert.match(usd, /^\$0\.0*[1-9]\d*$/, `a cost above zero: ${usd}`);
      assert.equal(await textOf(page.getByTestId('usage-total-diem')), '0');
      await modelRow(page).waitFor();
      assert.match(await textOf(modelRow(page)), /Scripted scripted-model/);
      await waitForCount(page.getByTestId('usage-recent-row'), 2);
      assert.ok(!(await textOf(page.getByTestId('usage-page'))).includes('clownfish'), 'no request or answer text on the dashboard');

      // One spend chart in the Account area: the usage page charts tokens and requests only.
      const metrics = await page
        .getByTestId('usage-chart')
        .getByRole('radio')
        .evaluateAll((r) => r.map((e) => e.closest('label')?.textContent?.trim()));
      assert.deepEqual(metrics, ['Tokens', 'Requests']);
      assert.equal(await page.getByTestId('key-row').count(), 0, 'the keys are on their own page');
      assert.equal(await page.getByTestId('rate-requests').count(), 0, 'the limits are on their own page');

      await page.getByTestId('account-tabs').getByTestId('limits-link').click();
      const requests = meter(page, 'rate-requests');
      await requests.waitFor();
      await until(
        async () => Number(await requests.getAttribute('data-remaining')) < Number(await requests.getAttribute('data-limit')),
        'the browser key’s request meter below its limit',
      );

      await page.getByTestId('account-tabs').getByTestId('keys-link').click();
      await until(async () => (await page.getByTestId('key-row').count()) === 2, 'the browser key and the personal key');
      const keys = await textOf(page.getByTestId('keys-page'));
      const last6 = await run.h.svc.store.all<{ last6: string }>('SELECT last6 FROM api_keys WHERE account_id = $1', [user.user.accountId]);
      for (const { last6: l } of last6) if (l) assert.ok(!keys.includes(l), 'a key’s last characters are on the page');
      await screenshot(page, 'usage');
    });

    test('the period switcher and the day table', async () => {
      await page.getByTestId('account-tabs').getByTestId('usage-link').click();
      await page.getByTestId('usage-chart').waitFor();
      await page.getByText('7 days', { exact: true }).click();
      await until(async () => (await page.getByTestId('usage-day-table').locator('tbody tr').count()) === 7, 'seven days in the table');
      await waitForText(page.getByTestId('usage-total-requests'), /^2$/);
      await page.getByRole('button', { name: 'Show as a table' }).click();
      await page.getByTestId('usage-day-table').waitFor({ state: 'visible' });
      await page.getByText('90 days', { exact: true }).click();
      await until(async () => (await page.getByTestId('usage-day-table').locator('tbody tr').count()) === 90, 'ninety days in the table');
    });

    test('a new user sees the empty state; /account links here', async () => {
      const fresh = await run.newUser();
      const { page: p } = await run.newPage();
      await run.signIn(p, fresh.email, '/account');
      await p.getByTestId('account-usage-link').click();
      await until(() => path(p) === '/usage', 'the usage page from /account');
      await p.getByTestId('usage-empty').waitFor();
      await waitForText(p.getByTestId('usage-total-requests'), /^0$/);
      await p.context().close();
    });

    test('axe: no serious or critical violation, light and dark, with usage and empty', async () => {
      const fresh = await run.newUser();
      const { page: empty } = await run.newPage();
      await run.signIn(empty, fresh.email, '/usage');
      const found: string[] = [];
      for (const scheme of ['light', 'dark'] as const) {
        for (const [name, p, ready] of [
          ['usage', page, () => modelRow(page).waitFor()],
          ['usage (empty)', empty, () => empty.getByTestId('usage-empty').waitFor()],
        ] as const) {
          await p.emulateMedia({ colorScheme: scheme });
          await p.goto('/usage');
          await ready();
          assert.equal(await p.evaluate(() => document.documentElement.classList.contains('dark')), scheme === 'dark');
          for (const v of await seriousA11yViolations(p)) found.push(`${name} (${scheme}): ${v}`);
        }
      }
      await screenshot(page, 'usage-dark');
      assert.deepEqual(found, []);
      await empty.context().close();
      await page.emulateMedia({ colorScheme: 'light' });
    });

    test('a 375 px phone: the dashboard fits without sideways scrolling', async () => {
      const { page: phone } = await run.newPage({ viewport: { width: 375, height: 740 } });
      await run.signIn(phone, user.email, '/usage');
      await modelRow(phone).waitFor();
      const overflow = await phone.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(overflow <= 0, `the page scrolls sideways by ${overflow}px`);
      await screenshot(phone, 'usage-mobile');
      await phone.context().close();
    });

    test('no key material in any response this file received, nor in the client bundles', async () => {
      const scanned = await assertNoKeyMaterial(run, [user.apiKey]);
      assert.ok(scanned.responses > 20, `scanned ${scanned.responses} responses`);
    });
  });
