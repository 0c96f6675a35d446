// A newcomer's first run in Chromium: the demo model says, where it is picked and in an empty chat, that its answers
// are meaningless and how to connect a real model (the operator gets a link to the models page; another user is
// told to ask the operator); web search is not offered when no search provider is configured (its reason shown
// instead), so no chat can be made that every message would fail in; DIEM is explained where it appears; and a
// user changes their display name and password, the new password signs in and the old one does not. Ends with the
// key-material scan.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { screenshot } from '../support/browser.ts';
import { catalogueModel } from '../support/harness.ts';
import { type AppRun, browserSkip, PASSWORD, startApp, type TestUser } from './support/app.ts';
import { assertNoKeyMaterial } from './support/key-scan.ts';
import { textOf, until, waitForText } from './support/wait.ts';

const skip = browserSkip();
const NEW_PASSWORD = 'a whole new passphrase';

if (skip) test('browser: first run', { skip }, () => {});
else
  describe('browser: first run', () => {
    let run: AppRun;
    let op: TestUser;
    let ann: TestUser;
    let page: Page;
    let annPage: Page;

    before(async () => {
      // The default catalogue's demo model beside the scripted ones; no search provider is configured.
      run = await startApp({ models: [catalogueModel('lagoon-demo')] });
      op = await run.newUser({ usd: 1 });
      ann = await run.newUser({ displayName: 'Ann' });
      ({ page } = await run.newPage());
      ({ page: annPage } = await run.newPage());
      await run.signIn(page, op.email, '/');
      await run.signIn(annPage, ann.email, '/');
    });
    after(() => run?.close());

    async function pickDemo(p: Page): Promise<void> {
      await p.getByTestId('model-picker').click();
      const option = p.getByRole('option').filter({ hasText: 'Lagoon Demo' });
      await waitForText(option.getByTestId('demo-notice-picker'), /meaningless/);
      await option.click();
      await p.getByTestId('demo-badge').waitFor();
    }

    test('the demo model says it talks nonsense, where it is picked and in an empty chat, with the way out', async () => {
      await pickDemo(page);
      const notice = page.getByTestId('demo-notice');
      await waitForText(notice, /meaningless words/);
      await waitForText(notice, /Connecting a real model/);
      await waitForText(notice, /npx lagoon model add/);
      await screenshot(page, 'first-run-demo-notice');
      await notice.getByTestId('demo-notice-operator-link').click();
      await page.getByTestId('operator-models-page').waitFor();
      await page.locator('[data-testid="model-row"][data-id="lagoon-demo"]').waitFor();

      await pickDemo(annPage);
      const annNotice = annPage.getByTestId('demo-notice');
      await waitForText(annNotice, /pick another model above if there is one, or ask this server’s operator to add one/);
      assert.doesNotMatch(await textOf(annNotice), /README|npx/, 'the operator’s recipe is for the operator');
      assert.equal(await annNotice.getByTestId('demo-notice-operator-link').count(), 0, 'no operator link for other users');
    });

    test('another model shows no demo notice', async () => {
      await annPage.getByTestId('model-picker').click();
      await annPage.getByRole('option').filter({ hasText: 'Scripted scripted-model' }).click();
      await until(async () => (await annPage.getByTestId('demo-notice').count()) === 0, 'the notice to go with the demo model');
    });

    test('web search is not offered without a provider, and says why', async () => {
      await annPage.getByTestId('chat-settings').click();
      const setting = annPage.getByTestId('web-search-setting');
      await waitForText(setting.getByTestId('web-search-unavailable'), /LAGOON_SEARCH_PROVIDER/);
      assert.equal(await setting.getByRole('radio').count(), 0, 'no Off/Auto/On to choose');
      await annPage.getByRole('button', { name: 'Cancel' }).click();
    });

    test('DIEM is explained on the account page and on /billing', async () => {
      await annPage.goto('/account');
      await annPage.getByTestId('diem-info').click();
      await waitForText(annPage.getByTestId('diem-explained'), /1 DIEM pays for 1 USD of inference/);
      await annPage.goto('/billing');
      await waitForText(annPage.getByTestId('diem-line'), /What is DIEM\?[\s\S]*refills every day at 00:00 UTC/);
    });

    test('a user changes their name and password; the new password signs in, the old one does not', async () => {
      await annPage.goto('/account');
      await annPage.getByTestId('display-name').fill('Ann Ocean');
      await annPage.getByTestId('profile-save').click();
      await annPage.getByTestId('profile-done').waitFor();
      await waitForText(annPage.getByTestId('account-page').locator('header'), 'Ann Ocean');

      const form = annPage.getByTestId('password-form');
      await form.getByLabel('Current password').fill('not my password');
      await form.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
      await form.getByLabel('New password again').fill(NEW_PASSWORD);
      await annPage.getByTestId('password-save').click();
      await waitForText(form, /The current password is incorrect/);
      await form.getByLabel('Current password').fill(PASSWORD);
      await annPage.getByTestId('password-save').click();
      await waitForText(annPage.getByTestId('password-done'), /Password changed/);
      await screenshot(annPage, 'account-settings');

      // Signed out, then through the sign-in form: the old password is refused, the new one works.
      await annPage.context().clearCookies();
      await annPage.goto('/sign-in');
      await annPage.getByLabel('Email').fill(ann.email);
      await annPage.getByLabel('Password', { exact: true }).fill(PASSWORD);
      await annPage.getByTestId('auth-submit').click();
      await annPage.getByTestId('auth-error').waitFor();
      await annPage.getByLabel('Password', { exact: true }).fill(NEW_PASSWORD);
      await annPage.getByTestId('auth-submit').click();
      await until(() => new URL(annPage.url()).pathname === '/', 'signed in with the new password');
      await annPage.getByTestId('composer-input').waitFor();
    });

    test('nothing the browser received holds key material', async () => {
      await assertNoKeyMaterial(run);
    });
  });
