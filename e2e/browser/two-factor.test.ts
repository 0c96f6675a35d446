// Two-step sign-in in Chromium: a user turns on TOTP from the account page (the secret shown there feeds the test's
// authenticator, `otpauth`), a wrong code is refused, the recovery codes are shown once; then the sign-in form asks
// for a code after the password, and a recovery code works in its place. Ends with the key-material scan.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Secret, TOTP } from 'otpauth';
import type { Page } from 'playwright-core';
import { screenshot } from '../support/browser.ts';
import { type AppRun, browserSkip, PASSWORD, startApp, type TestUser } from './support/app.ts';
import { assertNoKeyMaterial } from './support/key-scan.ts';
import { textOf, until, waitForAttribute, waitForCount, waitForText } from './support/wait.ts';

const skip = browserSkip();
const codeAt = (secret: string, at: number) => new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: at });

async function passwordStep(page: Page, email: string): Promise<void> {
  await page.goto('/sign-in');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await page.getByTestId('auth-submit').click();
  await page.getByTestId('second-factor-form').waitFor();
}

if (skip) test('browser: two-step sign-in', { skip }, () => {});
else
  describe('browser: two-step sign-in', () => {
    let run: AppRun;
    let user: TestUser;
    let secret = '';
    let codes: string[] = [];

    before(async () => {
      run = await startApp();
      user = await run.newUser();
    });
    after(() => run?.close());

    test('turn on TOTP from the account page: a wrong code is refused, then ten recovery codes are shown once', async () => {
      const { page } = await run.newPage();
      await run.signIn(page, user.email, '/account');
      const card = page.getByTestId('two-factor');
      await waitForAttribute(card.getByTestId('two-factor-state'), 'data-on', 'false');
      await card.getByTestId('totp-setup').click();
      secret = await textOf(card.getByTestId('totp-secret'));
      assert.match(secret, /^[A-Z2-7]{32}$/);
      assert.match((await card.getByTestId('totp-uri').getAttribute('href')) ?? '', /^otpauth:\/\/totp\//);
      await card.getByTestId('totp-code').fill('000000');
      await card.getByTestId('totp-confirm').click();
      await waitForText(card, /That code is not right/);
      await card.getByTestId('totp-code').fill(codeAt(secret, Date.now()));
      await card.getByTestId('totp-confirm').click();
      await waitForCount(card.getByTestId('recovery-code'), 10);
      codes = await card.getByTestId('recovery-code').allInnerTexts();
      await screenshot(page, 'two-factor-recovery-codes');
      await card.getByTestId('recovery-done').click();
      await waitForAttribute(card.getByTestId('two-factor-state'), 'data-on', 'true');
      await waitForText(card.getByTestId('two-factor-state'), /10 recovery codes left/);
      await page.reload();
      await waitForAttribute(page.getByTestId('two-factor-state'), 'data-on', 'true');
      assert.equal(await page.getByTestId('recovery-code').count(), 0, 'the recovery codes are not shown again');
    });

    test('sign-in asks for the code after the password; the current code signs in', async () => {
      const { page } = await run.newPage();
      await passwordStep(page, user.email);
      await screenshot(page, 'two-factor-sign-in');
      await page.getByTestId('second-factor-code').fill('123456');
      await page.getByTestId('second-factor-submit').click();
      await waitForText(page.getByTestId('second-factor-form'), /That code is not right/);
      // The next time step: the enrolment used the current one, and a code works once.
      await page.getByTestId('second-factor-code').fill(codeAt(secret, Date.now() + 30_000));
      await page.getByTestId('second-factor-submit').click();
      await until(() => new URL(page.url()).pathname === '/', 'signed in');
      await page.getByTestId('composer-input').waitFor();
    });

    test('a recovery code signs in in place of the app', async () => {
      const { page } = await run.newPage();
      await passwordStep(page, user.email);
      await page.getByTestId('second-factor-code').fill(codes[0]);
      await page.getByTestId('second-factor-submit').click();
      await until(() => new URL(page.url()).pathname === '/', 'signed in with a recovery code');
      await page.goto('/account');
      await waitForText(page.getByTestId('two-factor-state'), /9 recovery codes left/);
    });

    test('nothing the browser received holds key material, nor the stored (sealed) secret or code hashes', async () => {
      const sealed = await run.h.svc.store.get<{ totp_secret: string }>('SELECT totp_secret FROM users WHERE id = $1', [user.user.id]);
      const hashes = await run.h.svc.store.all<{ code_hash: string }>('SELECT code_hash FROM recovery_codes WHERE user_id = $1', [user.user.id]);
      assert.match(sealed?.totp_secret ?? '', /^sealed:v1:/);
      await assertNoKeyMaterial(run, [sealed?.totp_secret ?? '', ...hashes.map((h) => h.code_hash)]);
    });
  });
