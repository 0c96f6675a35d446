// Alerts in Chromium, with a real SMTP server and a webhook receiver on loopback: the owner sets a low-balance
// threshold, their email and a webhook on /alerts; spending through the API takes the balance below it; the alert
// arrives once by mail and once by webhook, whose signature the receiver verifies with the secret shown on the page;
// the delivery log shows both delivered, with the webhook's response code. "Send test" reaches both channels again.
// Then axe in both themes, and the key-material scan.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { screenshot, seriousA11yViolations } from '../support/browser.ts';
import { post } from '../support/harness.ts';
import { startSmtp, type TestSmtp } from '../support/smtp.ts';
import { startWebhookReceiver, verifyHook, type WebhookReceiver } from '../support/webhooks.ts';
import { type AppRun, browserSkip, startApp, type TestUser } from './support/app.ts';
import { assertNoKeyMaterial } from './support/key-scan.ts';
import { textOf, until, waitForCount } from './support/wait.ts';

const skip = browserSkip();

if (skip) test('browser: alerts', { skip }, () => {});
else
  describe('browser: alerts', () => {
    let run: AppRun;
    let smtp: TestSmtp;
    let hooks: WebhookReceiver;
    let user: TestUser;
    let page: Page;
    let secret = '';

    before(async () => {
      [smtp, hooks] = await Promise.all([startSmtp(), startWebhookReceiver()]);
      run = await startApp({
        env: { LAGOON_SMTP_URL: smtp.url, LAGOON_FETCH_ALLOW_HOSTS: '127.0.0.1', LAGOON_ALERT_POLL_MS: '200', LAGOON_ALERT_RETRY_BASE_MS: '200' },
      });
      user = await run.newUser({ usd: 5 });
      ({ page } = await run.newPage());
      await run.signIn(page, user.email, '/alerts');
      await page.getByTestId('alerts-form').waitFor();
    });
    after(async () => {
      await run?.close();
      await Promise.all([smtp?.close(), hooks?.close()]);
    });

    test('set a threshold, the email and a webhook; the signing secret is shown', async () => {
      // One of the Account area's tabs, marked as the current page.
      assert.equal(await page.getByTestId('alerts-link').getAttribute('aria-current'), 'page', 'the Alerts tab is the current page');
      await page.getByTestId('alert-low-usd').fill('5');
      assert.equal(await page.getByTestId('alert-email-on').isChecked(), true, 'mail is on by default when the server sends mail');
      assert.equal(await page.getByTestId('alert-email').inputValue(), user.email);
      // A URL that may not be reached is refused under its field.
      await page.getByTestId('alert-webhook').fill('http://169.254.169.254/latest');
      await page.getByTestId('alerts-save').click();
      await page.locator(`#${await page.getByTestId('alert-webhook').getAttribute('id')}-error`).waitFor();
      await page.getByTestId('alert-webhook').fill(hooks.url);
      await page.getByTestId('alerts-save').click();
      await page.getByTestId('alerts-saved').waitFor();
      secret = await textOf(page.getByTestId('webhook-secret'));
      assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
      // At $5.00 the balance is not below $5: nothing fired on saving.
      assert.equal(hooks.hooks.length, 0);
    });

    test('spending below the threshold alerts once by mail and by signed webhook; the log shows both', async () => {
      const r = await post(run.h, '/chat/completions', user.apiKey, {
        model: 'scripted-model',
        messages: [{ role: 'user', content: 'Name a fish [[reply:A grouper.]]' }],
      });
      assert.equal(r.status, 200, r.text);
      const mail = await smtp.next(user.email);
      assert.match(mail.subject, /^Lagoon alert: Your USD balance \(4\.9\d+\) is below 5\.000000$/);
      await until(() => hooks.hooks.length === 1, 'the webhook');
      const [hook] = hooks.hooks;
      assert.ok(verifyHook(secret, hook), 'the receiver verifies the signature with the secret from the page');
      assert.equal(hook.json.type, 'balance.low');
      assert.equal(hook.json.data.currency, 'USD');

      // A second request, still below: no second alert.
      const again = await post(run.h, '/chat/completions', user.apiKey, {
        model: 'scripted-model',
        messages: [{ role: 'user', content: 'Another [[reply:A wrasse.]]' }],
      });
      assert.equal(again.status, 200);
      await run.h.svc.ledger.drain();
      await run.h.svc.alerts.evaluate(user.user.accountId);

      const rows = page.getByTestId('delivery-row');
      await waitForCount(rows, 2);
      await page.locator('[data-testid="delivery-row"][data-status="delivered"]').nth(1).waitFor();
      const webhookRow = page.locator('[data-testid="delivery-row"][data-channel="webhook"]');
      assert.match(await textOf(webhookRow), /balance\.low.*webhook.*delivered.*1.*200/s);
      assert.match(await textOf(page.locator('[data-testid="delivery-row"][data-channel="email"]')), /balance\.low.*email.*delivered.*1.*sent/s);
      assert.equal(hooks.hooks.length, 1);
      assert.equal(smtp.mails.filter((m) => m.to.includes(user.email)).length, 1);
      await screenshot(page, 'alerts-log');
    });

    test('"Send test" reaches both channels', async () => {
      await page.getByTestId('send-test').click();
      await page.getByTestId('test-sent').waitFor();
      assert.match(await textOf(page.getByTestId('test-sent')), /email and webhook/);
      const mail = await smtp.next(user.email);
      assert.match(mail.subject, /test alert/i);
      await until(() => hooks.hooks.length === 2, 'the test webhook');
      assert.equal(hooks.hooks[1].json.type, 'alert.test');
      assert.ok(verifyHook(secret, hooks.hooks[1]));
      await waitForCount(page.locator('[data-testid="delivery-row"][data-status="delivered"]'), 4);
    });

    test('axe: no serious or critical violation on /alerts, light and dark', async () => {
      const found: string[] = [];
      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        await page.goto('/alerts');
        await page.getByTestId('alerts-form').waitFor();
        await page.getByTestId('delivery-row').first().waitFor();
        for (const v of await seriousA11yViolations(page)) found.push(`/alerts (${scheme}): ${v}`);
      }
      await page.emulateMedia({ colorScheme: 'light' });
      assert.deepEqual(found, []);
    });

    test('nothing the browser received holds key material', async () => {
      await assertNoKeyMaterial(run);
    });
  });
