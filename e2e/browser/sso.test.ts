// Single sign-on in Chromium against a real OpenID Connect provider (oidc-provider on loopback): the sign-in page
// shows "Sign in with Test IdP", the click goes to the provider's own login page, signing in there brings the browser
// back signed in (a new account, since sign-up is on), and a refused sign-on comes back to the sign-in page with its
// reason. Axe on the sign-in page with the button and the reason.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { screenshot, seriousA11yViolations } from '../support/browser.ts';
import { startOidcProvider, type TestProvider } from '../support/oidc.ts';
import { type AppRun, browserSkip, startApp } from './support/app.ts';
import { until, waitForText } from './support/wait.ts';

const skip = browserSkip();

if (skip) test('browser: single sign-on', { skip }, () => {});
else
  describe('browser: single sign-on', () => {
    let idp: TestProvider;
    let run: AppRun;
    let page: Page;

    before(async () => {
      idp = await startOidcProvider();
      run = await startApp({
        env: {
          LAGOON_OIDC_ISSUER: idp.issuer,
          LAGOON_OIDC_CLIENT_ID: idp.clientId,
          LAGOON_OIDC_CLIENT_SECRET: idp.clientSecret,
          LAGOON_OIDC_NAME: 'Test IdP',
          LAGOON_OIDC_ALLOW_SIGNUP: '1',
        },
      });
      idp.start(`${run.h.origin}/api/app/auth/sso/callback`);
      ({ page } = await run.newPage());
    });
    after(async () => {
      await run?.close();
      await idp?.close();
    });

    async function signInAtProvider(login: string) {
      await page.goto('/sign-in');
      const button = page.getByTestId('sso-sign-in');
      await waitForText(button, 'Sign in with Test IdP');
      await button.click();
      // The provider's own login page.
      await until(() => page.url().startsWith(idp.issuer), 'at the provider');
      await page.locator('input[name="login"]').fill(login);
      await page.locator('input[name="password"]').fill('any password');
      await page.locator('button[type="submit"]').click();
    }

    test('the button leads to the provider; signing in there lands signed in', async () => {
      await signInAtProvider('sso-browser-user');
      await until(() => page.url().startsWith(run.h.origin) && new URL(page.url()).pathname === '/', 'back at the app');
      await page.getByTestId('composer-input').waitFor();
      const me = await page.request.get('/api/app/auth/me');
      assert.equal(me.status(), 200, await me.text());
      assert.equal((await me.json()).user.email, 'sso-browser-user@example.test');
      await screenshot(page, 'sso-signed-in');
    });

    test('a refused sign-on comes back with its reason; axe finds nothing serious', async () => {
      await page.context().clearCookies();
      idp.accounts.set('sso-unverified', { email: 'sso-unverified@example.test', email_verified: false });
      await signInAtProvider('sso-unverified');
      await until(() => page.url().startsWith(`${run.h.origin}/sign-in`), 'back at the sign-in page');
      await waitForText(page.getByTestId('sso-error'), /not verified your email/);
      assert.equal((await page.request.get('/api/app/auth/me')).status(), 401);
      assert.deepEqual(await seriousA11yViolations(page), []);
      await screenshot(page, 'sso-refused');
    });

    test('an email user links the provider in Settings: the identity is listed, and it then signs in to that user', async () => {
      const u = await run.newUser();
      const { page: p } = await run.newPage();
      await run.signIn(p, u.email, '/account');
      await waitForText(p.getByTestId('method-sso'), /Test IdP not linked/);
      await p.getByTestId('sso-link').click();
      await until(() => p.url().startsWith(idp.issuer), 'at the provider');
      await p.locator('input[name="login"]').fill('sso-linker');
      await p.locator('input[name="password"]').fill('any password');
      await p.locator('button[type="submit"]').click();
      await until(() => p.url().startsWith(`${run.h.origin}/account`), 'back on the account page');
      await waitForText(p.getByTestId('method-sso'), /sso-linker@example\.test/);
      await p.context().clearCookies();
      await p.goto('/sign-in');
      await p.getByTestId('sso-sign-in').click();
      await until(() => p.url().startsWith(idp.issuer), 'at the provider again');
      await p.locator('input[name="login"]').fill('sso-linker');
      await p.locator('input[name="password"]').fill('any password');
      await p.locator('button[type="submit"]').click();
      await until(() => p.url().startsWith(run.h.origin) && new URL(p.url()).pathname === '/', 'signed in through the provider');
      assert.equal((await (await p.request.get('/api/app/auth/me')).json()).user.id, u.user.id);
    });

    test('the single sign-on newcomer has no password: Settings says so', async () => {
      // The user the first test made through the provider.
      await page.context().clearCookies();
      await signInAtProvider('sso-browser-user');
      await until(() => page.url().startsWith(run.h.origin) && new URL(page.url()).pathname === '/', 'back at the app');
      await page.goto('/account');
      await waitForText(page.getByTestId('method-email'), /sso-browser-user@example\.test, no password set/);
      await waitForText(page.getByTestId('method-sso'), /sso-browser-user@example\.test/);
      assert.equal(await page.getByTestId('sso-link').count(), 0);
    });
  });
