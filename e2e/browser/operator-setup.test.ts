// A fresh server in Chromium (issue 28): the first account made at /sign-up is an ordinary user; the link the server
// logs while it has no operator (/sign-up?setup=<token>) says what it does, and the account made through it is the
// operator. Ends with the key-material scan.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { operatorSetupToken } from '../../lib/users/operator-setup.ts';
import { screenshot } from '../support/browser.ts';
import { type AppRun, browserSkip, PASSWORD, startApp } from './support/app.ts';
import { assertNoKeyMaterial } from './support/key-scan.ts';
import { until } from './support/wait.ts';

const skip = browserSkip();

if (skip) test('browser: operator setup', { skip }, () => {});
else
  describe('browser: operator setup', () => {
    let run: AppRun;
    before(async () => {
      run = await startApp();
    });
    after(() => run?.close());

    const isAdmin = async (email: string) =>
      Boolean((await run.h.svc.store.get<{ is_admin: boolean | number }>('SELECT is_admin FROM users WHERE email = $1', [email]))?.is_admin);

    async function signUpIn(path: string, email: string): Promise<void> {
      const { page } = await run.newPage();
      await page.goto(path);
      await page.getByTestId('auth-form').waitFor();
      if (path.includes('setup=')) {
        await page.getByTestId('operator-setup-note').waitFor();
        await screenshot(page, 'operator-setup');
      } else assert.equal(await page.getByTestId('operator-setup-note').count(), 0);
      await page.getByLabel('Email').fill(email);
      await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
      await page.getByTestId('auth-submit').click();
      await until(() => new URL(page.url()).pathname === '/', 'the chat after signing up');
    }

    test('the first sign-up is an ordinary user; the setup link makes the operator', async () => {
      await signUpIn('/sign-up', 'first@example.com');
      assert.equal(await isAdmin('first@example.com'), false);
      const token = await operatorSetupToken(run.h.svc.store, undefined);
      await signUpIn(`/sign-up?setup=${token}`, 'owner@example.com');
      assert.equal(await isAdmin('owner@example.com'), true);
      await assertNoKeyMaterial(run);
    });
  });
