// Recovery by mail in Chromium, against a real SMTP server on loopback: from the sign-in page's "Forgot your
// password?" a user asks for a link, the test reads the mail the server sent, opens its link, sets a new password and
// signs in with it through the form; the session another browser held ends with the reset, and the used link is
// refused; the signed-in user verifies their address from the account page by a mailed link. Ends with the
// key-material scan.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { screenshot } from '../support/browser.ts';
import { resetLinkIn, startSmtp, type TestSmtp } from '../support/smtp.ts';
import { type AppRun, browserSkip, PASSWORD, startApp, type TestUser } from './support/app.ts';
import { assertNoKeyMaterial } from './support/key-scan.ts';
import { until, waitForAttribute, waitForText } from './support/wait.ts';

const skip = browserSkip();
const NEW_PASSWORD = 'a fresh tidal passphrase';

if (skip) test('browser: password reset by mail', { skip }, () => {});
else
  describe('browser: password reset by mail', () => {
    let run: AppRun;
    let smtp: TestSmtp;
    let user: TestUser;
    let page: Page;
    let elsewhere: Page;
    let link = '';

    before(async () => {
      smtp = await startSmtp();
      run = await startApp({ env: { LAGOON_SMTP_URL: smtp.url } });
      user = await run.newUser();
      ({ page } = await run.newPage());
      ({ page: elsewhere } = await run.newPage());
      await run.signIn(elsewhere, user.email, '/');
      await elsewhere.getByTestId('composer-input').waitFor();
    });
    after(async () => {
      await run?.close();
      await smtp?.close();
    });

    test('ask for a link from the sign-in page; the mail arrives with a link to this server', async () => {
      await page.goto('/sign-in');
      await page.getByTestId('forgot-link').click();
      await until(() => new URL(page.url()).pathname === '/forgot-password', 'the forgot-password page');
      await page.getByTestId('forgot-email').fill(user.email);
      await page.getByTestId('forgot-submit').click();
      await waitForText(page.getByTestId('forgot-sent'), /Check your email/);
      await screenshot(page, 'recovery-sent');
      const mail = await smtp.next(user.email);
      link = resetLinkIn(mail.text);
      assert.ok(link.startsWith(`${run.h.origin}/reset-password#token=`), link);
    });

    test('the link sets a new password; every session ends; the new password signs in through the form', async () => {
      await page.goto(link);
      await page.getByTestId('reset-form').waitFor();
      await page.getByLabel('New password').fill('short');
      await page.getByTestId('reset-submit').click();
      await page.getByTestId('reset-password-error').waitFor();
      await page.getByLabel('New password').fill(NEW_PASSWORD);
      await page.getByTestId('reset-submit').click();
      await waitForText(page.getByTestId('reset-done'), /Password changed/);
      await screenshot(page, 'recovery-done');

      // The other browser's session ended with the reset.
      await elsewhere.reload();
      await until(() => new URL(elsewhere.url()).pathname === '/sign-in', 'the other browser is signed out');

      await page.getByTestId('reset-sign-in').click();
      await until(() => new URL(page.url()).pathname === '/sign-in', 'the sign-in page');
      await page.getByLabel('Email').fill(user.email);
      await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
      await page.getByTestId('auth-submit').click();
      await page.getByTestId('auth-error').waitFor();
      await page.getByLabel('Password', { exact: true }).fill(NEW_PASSWORD);
      await page.getByTestId('auth-submit').click();
      await until(() => new URL(page.url()).pathname === '/', 'signed in with the new password');
      await page.getByTestId('composer-input').waitFor();
    });

    test('verify the email from the account page: the mailed link proves the address', async () => {
      await page.goto('/account');
      await waitForAttribute(page.getByTestId('email-status'), 'data-verified', 'false');
      await page.getByTestId('email-verify-send').click();
      await page.getByTestId('email-verify-sent').waitFor();
      const mail = await smtp.next(user.email);
      const verifyLink = /https?:\/\/\S+\/verify-email#token=[A-Za-z0-9_-]{43}/.exec(mail.text)?.[0] ?? '';
      assert.ok(verifyLink.startsWith(`${run.h.origin}/verify-email#token=`), mail.text);
      await page.goto(verifyLink);
      await waitForText(page.getByTestId('verify-done'), /verified/);
      await page.goto('/account');
      await waitForAttribute(page.getByTestId('email-status'), 'data-verified', 'true');
      assert.equal(await page.getByTestId('email-verify-send').count(), 0);
    });

    test('the used link is refused with a way to ask for a new one', async () => {
      await page.context().clearCookies();
      await page.goto(link);
      await page.getByLabel('New password').fill('one more passphrase');
      await page.getByTestId('reset-submit').click();
      await waitForText(page.getByTestId('reset-error'), /invalid, used or expired/);
      await page.getByTestId('reset-error').getByRole('link', { name: 'Ask for a new link' }).waitFor();
    });

    test('nothing the browser received holds key material', async () => {
      await assertNoKeyMaterial(run);
    });
  });
