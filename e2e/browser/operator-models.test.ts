// The operator's models page in Chromium: from /operator to /operator/models; the file's models with their engines;
// adding an OpenAI-compatible upstream (the scripted engine, its origin without /v1, a key stored on the server):
// "Test" says it answers, "Add" puts it in every list at once, and a user chats with it; its prices are edited and
// the picker shows them; disabling takes it out of the picker, enabling brings it back. Then the operator resets a
// user's password from the Manage dialog (the temporary password signs in). Ends with the key-material scan, which
// also looks for the stored upstream key.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { screenshot } from '../support/browser.ts';
import { post } from '../support/harness.ts';
import { type AppRun, browserSkip, startApp, type TestUser } from './support/app.ts';
import { assertNoKeyMaterial } from './support/key-scan.ts';
import { until, waitForAttribute, waitForText } from './support/wait.ts';

const skip = browserSkip();
const UPSTREAM_KEY = 'sk-browser-stored-upstream-key-0123456789';

if (skip) test('browser: operator models', { skip }, () => {});
else
  describe('browser: operator models', () => {
    let run: AppRun;
    let op: TestUser;
    let bob: TestUser;
    let page: Page;
    let bobPage: Page;

    before(async () => {
      run = await startApp();
      op = await run.newUser({ usd: 1 });
      bob = await run.newUser({ usd: 5, displayName: 'Bob' });
      ({ page } = await run.newPage());
      ({ page: bobPage } = await run.newPage());
      await run.signIn(page, op.email, '/operator');
      await run.signIn(bobPage, bob.email, '/');
    });
    after(() => run?.close());

    const row = (id: string) => page.locator(`[data-testid="model-row"][data-id="${id}"]`);
    const pickerOptions = async (p: Page) => {
      await p.getByTestId('model-picker').click();
      const names = await p.getByRole('option').allInnerTexts();
      await p.keyboard.press('Escape');
      return names.join('\n');
    };

    test('the page lists the file’s models with their engines', async () => {
      await page.getByTestId('operator-models-link').click();
      await page.getByTestId('operator-models-page').waitFor();
      await waitForAttribute(row('plain-model'), 'data-origin', 'file');
      await waitForText(row('plain-model'), /openai · http:\/\/127\.0\.0\.1:\d+\/v1/);
    });

    test('an upstream is tested, added, and served at once', async () => {
      const form = page.getByTestId('add-model-form');
      await form.getByTestId('add-model-id').fill('reef-upstream');
      await form.getByTestId('add-model-url').fill(new URL(run.h.engine.url).origin);
      await form.getByTestId('add-model-upstream').fill('scripted');
      await form.getByTestId('add-model-key').fill(UPSTREAM_KEY);
      await form.getByTestId('add-model-input-price').fill('2');
      await form.getByTestId('add-model-output-price').fill('4');
      await form.getByTestId('add-model-test').click();
      await waitForAttribute(form.getByTestId('add-model-test-result'), 'data-ok', 'true');
      await form.getByTestId('add-model-submit').click();
      await waitForText(form.getByTestId('add-model-done'), /Added reef-upstream/);
      await waitForAttribute(row('reef-upstream'), 'data-origin', 'operator');
      await waitForText(row('reef-upstream'), /key stored on the server/);
      await waitForText(row('reef-upstream'), /\$2 in · \$4 out/);
      await screenshot(page, 'operator-models');

      await bobPage.reload();
      await until(async () => (await pickerOptions(bobPage)).includes('reef-upstream'), 'the picker to list the added model');
      const chat = await post(run.h, '/chat/completions', bob.apiKey, { model: 'reef-upstream', messages: [{ role: 'user', content: 'hi [[reply:reef]]' }] });
      assert.equal(chat.status, 200, chat.text);
      assert.equal(run.h.engine.requests.at(-1)?.headers.authorization, `Bearer ${UPSTREAM_KEY}`);
    });

    test('prices are edited; disabling takes the model out of the picker, enabling brings it back', async () => {
      await row('reef-upstream').getByTestId('model-prices').click();
      const dialog = page.getByTestId('prices-dialog');
      await dialog.getByTestId('price-input').fill('5');
      await dialog.getByTestId('price-output').fill('9');
      await dialog.getByTestId('price-save').click();
      await waitForText(row('reef-upstream'), /\$5 in · \$9 out/);

      await row('reef-upstream').getByTestId('model-toggle').click();
      await waitForAttribute(row('reef-upstream'), 'data-disabled', 'true');
      await bobPage.reload();
      await until(async () => !(await pickerOptions(bobPage)).includes('reef-upstream'), 'the picker to drop the disabled model');

      await row('reef-upstream').getByTestId('model-toggle').click();
      await waitForAttribute(row('reef-upstream'), 'data-disabled', 'false');
      await bobPage.reload();
      await until(async () => /reef-upstream[\s\S]*\$5 in · \$9 out/.test(await pickerOptions(bobPage)), 'the picker to show it with its new prices');
    });

    test("the operator resets a user's password; the temporary one signs in", async () => {
      await page.goto('/operator');
      await page.getByTestId('operator-search').fill(bob.email);
      const bobRow = page.locator(`[data-testid="account-row"][data-id="${bob.user.accountId}"]`);
      await bobRow.getByTestId('manage-account').click();
      const dialog = page.getByTestId('manage-dialog');
      await dialog.getByTestId('reset-password').click();
      const shown = await waitForText(dialog.getByTestId('reset-password-result'), /Temporary password for/);
      const temporary = /password for \S+: (\S+)\./.exec(shown)?.[1];
      assert.ok(temporary, shown);
      run.secrets.push(UPSTREAM_KEY);
      const res = await page.request.post(`${run.h.origin}/api/app/auth/sign-in`, {
        data: { email: bob.email, password: temporary },
        headers: { origin: run.h.origin },
      });
      assert.equal(res.status(), 200);
      await dialog.getByRole('button', { name: 'Close' }).click();
      await waitForText(page.getByTestId('audit-row').first(), /Reset the password/);
    });

    test('nothing the browser received holds key material (the stored upstream key included)', async () => {
      await assertNoKeyMaterial(run, [UPSTREAM_KEY]);
    });
  });
