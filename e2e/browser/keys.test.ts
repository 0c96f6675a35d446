// API keys in Chromium, end to end: a user creates a capped key on /keys and sees its secret once; the page's own curl
// snippet, run as it stands against the running server, gets an answer; the usage shows up on /billing (the spend,
// the statement row with the key's name) and the key's meter moves on /keys and its rate-limit meter on /limits;
// the key is revoked after a confirmation and the same snippet is refused. Ends with the key-material scan: the new
// secret reached the browser in the create response only, and no other secret or digest at all.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import type { Page } from 'playwright-core';
import { screenshot } from '../support/browser.ts';
import { type AppRun, browserSkip, startApp, type TestUser } from './support/app.ts';
import { assertNoKeyMaterial } from './support/key-scan.ts';
import { textOf, until, waitForAttribute, waitForText } from './support/wait.ts';
import { openAccountLink } from './support/nav.ts';

const skip = browserSkip();
const run$ = promisify(execFile);
const SECRET_SHAPE = /^lgn_inf_[A-Za-z0-9]{40}$/;

/** Runs a snippet copied from the page with bash, as a user pasting it into a terminal would. */
async function runSnippet(code: string): Promise<any> {
  const { stdout } = await run$('bash', ['-c', code], { timeout: 30_000 });
  return JSON.parse(stdout);
}

if (skip) test('browser: API keys', { skip }, () => {});
else
  describe('browser: API keys', () => {
    let run: AppRun;
    let page: Page;
    let user: TestUser;
    let secret = '';
    let curl = '';
    let keyId = '';

    before(async () => {
      run = await startApp();
      user = await run.newUser({ usd: 5 });
      ({ page } = await run.newPage());
      await run.signIn(page, user.email, '/');
      await page.getByTestId('composer-input').waitFor();
    });
    after(() => run?.close());

    test('create a capped key from the sidebar’s API keys page: the secret is shown once, with snippets that hold it', async () => {
      await openAccountLink(page, 'keys-link');
      await until(() => new URL(page.url()).pathname === '/keys', 'the keys page');
      await page.getByTestId('create-key').waitFor();
      await page.getByTestId('key-description').fill('reef script');
      await page.getByTestId('key-cap-usd').fill('1');
      await page.getByTestId('key-period').selectOption('MONTH');
      await page.getByTestId('create-key-submit').click();
      const dialog = page.getByTestId('secret-dialog');
      await dialog.getByTestId('new-key-secret').waitFor();
      secret = await textOf(dialog.getByTestId('new-key-secret'));
      assert.match(secret, SECRET_SHAPE);
      await waitForText(dialog, /shown only this once/);
      curl = await textOf(dialog.locator('[data-testid="snippet-code"][data-lang="curl"]'));
      assert.ok(curl.includes(`Bearer ${secret}`), 'the curl snippet holds the new key');
      assert.ok(curl.includes(`${run.h.origin}/api/v1/chat/completions`), `the base URL is this server: ${curl}`);
      await dialog.getByTestId('snippet-tab-python').click();
      const python = await textOf(dialog.locator('[data-testid="snippet-code"][data-lang="python"]'));
      assert.match(python, /from openai import OpenAI/);
      assert.ok(python.includes(`base_url="${run.h.origin}/api/v1"`));
      await screenshot(page, 'keys-secret');
      await dialog.getByTestId('secret-done').click();
      await dialog.waitFor({ state: 'hidden' });
      assert.ok(!(await page.content()).includes(secret), 'the secret is gone from the page once the dialog closes');
      const row = page.locator('[data-testid="key-row"]', { hasText: 'reef script' });
      await row.waitFor();
      keyId = (await row.getAttribute('data-id')) ?? '';
      assert.ok(keyId);
      await waitForAttribute(row.getByTestId('key-meter'), 'data-value', '0');
      assert.equal(await row.getByTestId('key-meter').getAttribute('data-max'), '1');
    });

    test('the page’s own curl snippet works against the running server; the meter, billing and limits move', async () => {
      const answer = await runSnippet(curl);
      assert.equal(answer.object, 'chat.completion', JSON.stringify(answer));
      assert.ok(answer.usage.total_tokens > 0);
      await run.h.svc.ledger.drain();

      await page.reload();
      const meter = page.locator('[data-testid="key-row"]', { hasText: 'reef script' }).getByTestId('key-meter');
      await until(async () => Number(await meter.getAttribute('data-value')) > 0, 'the key’s USD meter above 0');

      await openAccountLink(page, 'billing-link');
      await page.getByTestId('billing-page').waitFor();
      await waitForText(page.getByTestId('spend-today'), /^\$0\.0*[1-9]/);
      const row = page.locator('[data-testid="statement-row"][data-kind="inference"]');
      await row.first().waitFor();
      assert.match(await textOf(row.first()), /reef script/);
      assert.match(await textOf(row.first()), /scripted-model/);
      await page.getByTestId('chart-spend').waitFor();

      await openAccountLink(page, 'limits-link');
      await page.getByTestId('limits-page').waitFor();
      await page.getByTestId('limits-key').selectOption(keyId);
      const requests = page.locator('[data-testid="limit-model"][data-model="scripted-model"] [data-testid="rate-requests"]');
      await until(
        async () => Number(await requests.getAttribute('data-remaining')) === Number(await requests.getAttribute('data-limit')) - 1,
        'one request used from the key’s budget',
      );
      await screenshot(page, 'limits');
    });

    test('revoke after a confirmation: the same snippet is refused', async () => {
      await openAccountLink(page, 'keys-link');
      const row = page.locator(`[data-testid="key-row"][data-id="${keyId}"]`);
      await row.getByTestId('revoke-key').click();
      const confirm = page.getByTestId('confirm-dialog');
      await waitForText(confirm, /stops working at once/);
      await confirm.getByTestId('confirm-button').click();
      await waitForAttribute(row, 'data-revoked', 'true');
      assert.match(await textOf(row), /Revoked/);
      const refused = await runSnippet(curl);
      assert.equal(refused.code, 'AUTHENTICATION_FAILED_INACTIVE_KEY', JSON.stringify(refused));
    });

    test('no secret reached the browser but the new key, once, in its create response', async () => {
      for (const c of run.contexts) await c.settle();
      const received = run.contexts.flatMap((c) => c.received);
      const carrying = received.filter((r) => r.body.includes(secret) || JSON.stringify(r.headers).includes(secret));
      assert.deepEqual(
        carrying.map((r) => new URL(r.url).pathname),
        ['/api/app/api-keys'],
        'the secret came in the create response only',
      );
      // That one showing is by design: the rest of the scan (every response, every bundle file) allows no key at all.
      for (const r of carrying) r.body = r.body.replaceAll(secret, '[the new key, shown once]');
      const scanned = await assertNoKeyMaterial(run, [user.apiKey]);
      assert.ok(scanned.responses > 20, `scanned ${scanned.responses} responses`);
    });
  });
