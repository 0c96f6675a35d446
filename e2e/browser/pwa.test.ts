// The installable app in Chromium: the page links a manifest Chromium parses without errors and finds installable
// (DevTools' own checks: Page.getAppManifest, Page.getInstallabilityErrors), its icons are real PNGs of the sizes it
// names, the service worker registers, activates and controls the page, its cache holds the shell and nothing of an
// account (checked again after a signed-in load); then with the network off a reload shows the offline frame ("You're offline"), and with it back the app.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { launchProfile, screenshot } from '../support/browser.ts';
import { type AppRun, browserSkip, startApp, type TestUser } from './support/app.ts';
import { assertNoCspViolations } from './support/key-scan.ts';
import { until, waitForText } from './support/wait.ts';

const skip = browserSkip();

if (skip) test('browser: installable app', { skip }, () => {});
else
  describe('browser: installable app', () => {
    let run: AppRun;
    let user: TestUser;
    let page: Page;

    before(async () => {
      run = await startApp();
      user = await run.newUser({ usd: 1 });
      ({ page } = await run.newPage());
      await run.signIn(page, user.email);
      await page.getByTestId('composer-input').waitFor();
    });
    after(() => run?.close());

    test('the manifest parses without errors and Chromium finds the app installable', async (t) => {
      // A real profile: Chromium never offers to install from an incognito context (every newContext() is one).
      const dir = await mkdtemp(join(tmpdir(), 'lagoon-pwa-'));
      const profile = await launchProfile(dir);
      t.after(async () => {
        await profile.close();
        await rm(dir, { recursive: true, force: true });
      });
      const page = await profile.newPage();
      await page.goto(`${run.h.origin}/sign-in`);
      await page.getByTestId('auth-form').waitFor();
      const cdp = await page.context().newCDPSession(page);
      const manifest = (await cdp.send('Page.getAppManifest')) as { url: string; errors: { message: string }[]; data?: string };
      assert.equal(new URL(manifest.url).pathname, '/manifest.webmanifest');
      assert.deepEqual(manifest.errors, []);
      const data = JSON.parse(manifest.data ?? '{}') as { display: string; start_url: string; icons: { src: string; sizes: string; purpose: string }[] };
      assert.equal(data.display, 'standalone');
      assert.equal(data.start_url, '/');
      // Each PNG icon is what it says it is.
      for (const icon of data.icons.filter((i) => i.src.endsWith('.png'))) {
        const res = await page.request.get(new URL(icon.src, run.h.origin).href);
        assert.equal(res.status(), 200, icon.src);
        assert.equal(res.headers()['content-type'], 'image/png');
        const meta = await sharp(await res.body()).metadata();
        assert.equal(`${meta.width}x${meta.height}`, icon.sizes, icon.src);
      }
      assert.ok(data.icons.some((i) => i.purpose === 'maskable'));
      // The worker must be in control for older installability rules; wait for it before asking.
      await page.evaluate(() => navigator.serviceWorker.ready.then(() => undefined));
      let errors: string[] = [];
      await until(async () => {
        const r = (await cdp.send('Page.getInstallabilityErrors')) as { installabilityErrors: { errorId: string }[] };
        errors = r.installabilityErrors.map((e) => e.errorId);
        return errors.length === 0;
      }, 'no installability errors').catch(() => {});
      assert.deepEqual(errors, [], 'Chromium’s installability errors');
      await cdp.detach();
    });

    test('the service worker activates, caches the shell only, and an offline reload shows the offline frame', async () => {
      const state = await page.evaluate(async () => {
        const reg = await navigator.serviceWorker.ready;
        return { scope: reg.scope, state: reg.active?.state, script: reg.active?.scriptURL };
      });
      assert.equal(new URL(state.script ?? '').pathname, '/sw.js');
      assert.equal(state.state, 'activated');
      await until(() => page.evaluate(() => navigator.serviceWorker.controller !== null), 'the worker controls the page');
      const cached = await page.evaluate(async () => {
        const names = await caches.keys();
        const urls: string[] = [];
        for (const name of names) for (const req of await (await caches.open(name)).keys()) urls.push(new URL(req.url).pathname);
        return { names, urls };
      });
      assert.deepEqual(cached.names, ['lagoon-shell-v1']);
      assert.ok(cached.urls.includes('/offline.html'), cached.urls.join(', '));
      assert.ok(!cached.urls.some((u) => u.startsWith('/api/')), 'nothing of the API is cached');

      await page.context().setOffline(true);
      await page.reload();
      await page.getByTestId('offline-shell').waitFor();
      await waitForText(page.locator('h1'), "You're offline");
      assert.equal(new URL(page.url()).pathname, '/', 'the address stays the one asked for');
      await screenshot(page, 'offline-shell');

      await page.context().setOffline(false);
      await page.getByTestId('offline-retry').click();
      await page.getByTestId('composer-input').waitFor();
      // After a whole signed-in page load through the worker, its cache still holds the shell and nothing else.
      const after = await page.evaluate(async () => (await (await caches.open('lagoon-shell-v1')).keys()).map((r) => new URL(r.url).pathname).sort());
      assert.deepEqual(after, ['/icon.svg', '/icons/icon-192.png', '/manifest.webmanifest', '/offline.css', '/offline.html']);
      assertNoCspViolations(run);
    });
  });
