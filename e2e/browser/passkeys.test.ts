// Passkeys in Chromium with its virtual authenticator (CDP WebAuthn.addVirtualAuthenticator: CTAP2, resident keys,
// user verification): a user adds a passkey on the account page, signs out, and signs in with the passkey alone (no
// email, no password); a removed passkey no longer signs in. The server is reached as http://localhost:PORT, its
// LAGOON_PUBLIC_URL, since WebAuthn takes a domain (not an IP address) as the relying party id. Ends with the
// key-material scan.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { CDPSession, Page } from 'playwright-core';
import { screenshot } from '../support/browser.ts';
import { type AppRun, browserSkip, PASSWORD, startApp, type TestUser } from './support/app.ts';
import { assertNoKeyMaterial } from './support/key-scan.ts';
import { until, waitForCount, waitForText } from './support/wait.ts';

const skip = browserSkip();

if (skip) test('browser: passkeys', { skip }, () => {});
else
  describe('browser: passkeys', () => {
    let run: AppRun;
    let user: TestUser;
    let page: Page;
    let cdp: CDPSession;
    let authenticatorId = '';
    let origin = '';

    before(async () => {
      run = await startApp({ publicUrl: (o) => o.replace('127.0.0.1', 'localhost') });
      origin = run.h.origin.replace('127.0.0.1', 'localhost');
      user = await run.newUser();
      ({ page } = await run.newPage());
      cdp = await page.context().newCDPSession(page);
      await cdp.send('WebAuthn.enable');
      ({ authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
        options: {
          protocol: 'ctap2',
          transport: 'internal',
          hasResidentKey: true,
          hasUserVerification: true,
          isUserVerified: true,
          automaticPresenceSimulation: true,
        },
      }));
      // Signed in at the public origin (the cookie belongs to its host).
      const res = await page.request.post(`${origin}/api/app/auth/sign-in`, { data: { email: user.email, password: PASSWORD }, headers: { origin } });
      assert.equal(res.status(), 200, await res.text());
    });
    after(() => run?.close());

    test('add a passkey on the account page: the authenticator holds a resident credential, the page lists it', async () => {
      await page.goto(`${origin}/account`);
      const card = page.getByTestId('passkeys');
      await waitForText(card, /for localhost/);
      await card.getByTestId('passkey-name-input').fill('Test laptop');
      await card.getByTestId('passkey-add').click();
      await waitForCount(card.getByTestId('passkey-row'), 1);
      await waitForText(card.getByTestId('passkey-name'), 'Test laptop');
      await waitForText(card.getByTestId('passkey-row'), /not used yet/);
      const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
      assert.equal(credentials.length, 1);
      assert.equal(credentials[0].isResidentCredential, true);
      assert.equal(credentials[0].rpId, 'localhost');
      const rows = await run.h.svc.store.all<{ id: string; user_id: string }>('SELECT id, user_id FROM passkeys');
      assert.deepEqual(
        rows.map((r) => r.user_id),
        [user.user.id],
      );
      assert.equal(rows[0].id, credentials[0].credentialId.replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_'));
      await screenshot(page, 'passkeys-added');
    });

    test('signed out, the passkey alone signs in (no email, no password)', async () => {
      await page.context().clearCookies();
      await page.goto(`${origin}/sign-in`);
      await page.getByTestId('passkey-sign-in').click();
      await until(() => new URL(page.url()).pathname === '/', 'signed in with the passkey');
      await page.getByTestId('composer-input').waitFor();
      await page.goto(`${origin}/account`);
      await waitForText(page.getByTestId('passkey-row'), /last used/);
      const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
      assert.ok(credentials[0].signCount >= 1, 'the authenticator signed');
    });

    test('a removed passkey no longer signs in', async () => {
      const card = page.getByTestId('passkeys');
      await card.getByTestId('passkey-delete').click();
      await waitForCount(card.getByTestId('passkey-row'), 0);
      await page.context().clearCookies();
      await page.goto(`${origin}/sign-in`);
      await page.getByTestId('passkey-sign-in').click();
      await waitForText(page.getByTestId('passkey-sign-in-error'), /could not sign you in/);
      assert.equal(new URL(page.url()).pathname, '/sign-in');
    });

    test('nothing the browser received holds key material', async () => {
      await assertNoKeyMaterial(run);
    });
  });
