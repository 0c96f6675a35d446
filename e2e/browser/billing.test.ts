// The billing page in Chromium: after requests with two models, the balances, spend and projection; the three
// Recharts charts drawn (SVG, keyboard-focusable) with their tables beside them; the statement filtered by model and
// kind; the CSV export downloaded from the page and compared row by row with GET /api/v1/billing/usage-history's
// CSV; the same page in German (its days, amounts and axes in German format); then axe (no serious or critical
// violation) on /billing, /keys and /limits in light and dark, and a 375 px phone without sideways scrolling. Ends
// with the key-material scan.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { accountKeys } from '../../lib/auth/keys.ts';
import { screenshot, seriousA11yViolations } from '../support/browser.ts';
import { get, post } from '../support/harness.ts';
import { type AppRun, browserSkip, startApp, type TestUser } from './support/app.ts';
import { assertNoKeyMaterial } from './support/key-scan.ts';
import { textOf, until, waitForCount, waitForText } from './support/wait.ts';

const skip = browserSkip();
const records = (csv: string) =>
  csv
    .split('\r\n')
    .filter(Boolean)
    .map((l) => l.split(','));

if (skip) test('browser: billing', { skip }, () => {});
else
  describe('browser: billing', () => {
    let run: AppRun;
    let page: Page;
    let user: TestUser;
    let admin = '';

    before(async () => {
      run = await startApp();
      user = await run.newUser({ usd: 5 });
      for (const [model, reply] of [
        ['scripted-model', 'A clownfish.'],
        ['plain-model', 'A whale shark.'],
        ['scripted-model', 'A manta ray.'],
      ]) {
        const r = await post(run.h, '/chat/completions', user.apiKey, { model, messages: [{ role: 'user', content: `Name a fish [[reply:${reply}]]` }] });
        assert.equal(r.status, 200, r.text);
      }
      await run.h.svc.ledger.drain();
      admin = (await accountKeys(run.h.svc.store, user.user.accountId).create({ type: 'ADMIN', description: 'export check' })).secret;
      run.secrets.push(admin);
      ({ page } = await run.newPage());
      await run.signIn(page, user.email, '/billing');
      await page.getByTestId('billing-page').waitFor();
    });
    after(() => run?.close());

    test('balances, spend and the projection; three charts with their tables', async () => {
      await waitForText(page.getByTestId('spend-today'), /^\$0\.0*[1-9]/);
      assert.match(await textOf(page.locator('section[aria-labelledby="billing-spend"]')), /3 requests/);
      assert.match(await textOf(page.getByTestId('balance-usd')), /^\$(4\.9\d|5\.00)$/);
      assert.match(await textOf(page.getByTestId('projection')), /lasts (about [\d,]+ days?, until|more than 1,000 days)/);
      for (const id of ['chart-spend', 'chart-tokens', 'chart-hours']) {
        const chart = page.getByTestId(id);
        await chart.locator('svg.recharts-surface[role="application"]').waitFor();
        assert.equal(await chart.locator('svg.recharts-surface[role="application"]').getAttribute('tabindex'), '0', `${id} takes keyboard focus`);
      }
      // The stacked spend chart has one series per model; its table holds the same figures.
      await until(async () => (await page.getByTestId('chart-spend').locator('.recharts-bar').count()) === 2, 'two stacked series');
      const spend = page.getByTestId('chart-spend');
      await spend.getByRole('button', { name: 'Show as a table' }).click();
      const table = page.getByTestId('chart-spend-table');
      await table.waitFor({ state: 'visible' });
      assert.equal(await table.locator('tbody tr').count(), 30);
      assert.deepEqual(await table.locator('thead th').allInnerTexts(), ['Day', 'scripted-model', 'plain-model', 'Total']);
      assert.match(await textOf(table.locator('tbody tr').last()), /\$0\.0*[1-9]/);
      const hours = page.getByTestId('chart-hours-table');
      assert.equal(await hours.locator('tbody tr').count(), 24);
      await page.getByTestId('chart-spend').locator('svg.recharts-surface[role="application"]').focus();
      await page.keyboard.press('ArrowRight');
      await screenshot(page, 'billing');
    });

    test('the statement: three charges and the starting grant, filtered by model and kind', async () => {
      const rows = page.getByTestId('statement-row');
      await waitForCount(rows, 4);
      // The model box filters once typing pauses: wait for each filter's own rows, never for a count alone.
      await page.getByTestId('statement-model').fill('plain-model');
      await until(async () => (await rows.count()) === 1 && /plain-model/.test(await textOf(rows)), 'the plain-model charge alone');
      assert.match(await textOf(rows), /plain-model[\s\S]*personal key/);
      await page.getByTestId('statement-model').fill('');
      await waitForCount(rows, 4);
      await page.getByTestId('statement-kind').selectOption('grant');
      await until(async () => (await rows.count()) === 1 && (await rows.getAttribute('data-kind')) === 'grant', 'the grant alone');
      assert.match(await textOf(rows), /\+\$5\.00/);
      await page.getByTestId('statement-kind').selectOption('');
      await waitForCount(rows, 4);
    });

    test('the CSV export from the page has the API’s rows', async () => {
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-csv').click()]);
      assert.match(download.suggestedFilename(), /^statement-\d{4}-\d{2}-\d{2}\.csv$/);
      const ours = records(fs.readFileSync((await download.path()) as string, 'utf8'));
      const api = await get(run.h, '/billing/usage-history', admin, { accept: 'text/csv' });
      assert.equal(api.status, 200);
      const theirs = records(api.text);
      const width = theirs[0].length;
      assert.deepEqual(ours[0].slice(0, width), theirs[0]);
      const charges = ours.slice(1).filter((r) => r[width] === 'inference');
      assert.equal(charges.length, 3);
      assert.deepEqual(
        charges.map((r) => r.slice(0, width)),
        theirs.slice(1),
      );
      assert.equal(ours.slice(1).filter((r) => r[width] === 'grant').length, 1);
      const [json] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-json').click()]);
      const body = JSON.parse(fs.readFileSync((await json.path()) as string, 'utf8'));
      assert.equal(body.entries.length, 4);
    });

    test('in German the charts label their days, and money reads, the German way (the unit and digits kept)', async () => {
      const { page: de } = await run.newPage();
      await de.context().addCookies([{ name: 'lagoon-locale', value: 'de', url: run.h.origin }]);
      await run.signIn(de, user.email, '/billing');
      // "27. Nov.", never "Nov 27"; "4,99 $", never "$4.99" (Intl puts a no-break space, which \s matches).
      const germanDay = /^\d{1,2}\. (Jan|Feb|März|Apr|Mai|Juni|Juli|Aug|Sept|Okt|Nov|Dez)\.?$/;
      await waitForText(de.getByTestId('balance-usd'), /^(4,9\d|5,00)\s\$$/);
      // Today's spend is a fraction of a cent: still two significant digits, after a decimal comma.
      await waitForText(de.getByTestId('spend-today'), /^0,0*[1-9]\d?\s\$$/);
      const spend = de.getByTestId('chart-spend');
      await spend.locator('svg.recharts-surface[role="application"]').waitFor();
      // The axes are drawn once the chart has measured its box, a moment after the SVG appears (Recharts 3 keeps the
      // labels in a layer of their own).
      const xTicks = spend.locator('.recharts-xAxis-tick-labels .recharts-cartesian-axis-tick-value');
      await until(async () => (await xTicks.count()) >= 2, 'day labels along the axis');
      for (const tick of await xTicks.allTextContents()) assert.match(tick, germanDay);
      const yTicks = await spend.locator('.recharts-yAxis-tick-labels .recharts-cartesian-axis-tick-value').allTextContents();
      assert.ok(
        yTicks.some((v) => /^0,0*[1-9]\d?\s\$$/.test(v)),
        `a German amount on the value axis: ${yTicks.join(' | ')}`,
      );
      await spend.getByRole('button', { name: 'Als Tabelle zeigen' }).click();
      const table = de.getByTestId('chart-spend-table');
      await table.waitFor({ state: 'visible' });
      const days = await table.locator('tbody th').allInnerTexts();
      assert.equal(days.length, 30);
      for (const day of days) assert.match(day, germanDay);
      assert.match(await textOf(table.locator('tbody tr').last().locator('td').last()), /^0,0*[1-9]\d?\s\$$/);
      // The tokens chart's days and counts too, and the statement's money.
      const tokenTicks = de.getByTestId('chart-tokens').locator('.recharts-xAxis-tick-labels .recharts-cartesian-axis-tick-value');
      await until(async () => (await tokenTicks.count()) >= 2, 'day labels along the tokens chart');
      for (const tick of await tokenTicks.allTextContents()) assert.match(tick, germanDay);
      await waitForText(de.locator('[data-testid="statement-row"][data-kind="grant"]'), /\+5,00\s\$/);
      await de.context().close();
    });

    test('axe: no serious or critical violation on /billing, /keys and /limits, light and dark', async () => {
      const found: string[] = [];
      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        for (const [path, ready] of [
          ['/billing', () => page.getByTestId('chart-hours').locator('svg.recharts-surface[role="application"]').waitFor()],
          ['/keys', () => page.getByTestId('key-row').first().waitFor()],
          ['/limits', () => page.getByTestId('limit-model').first().waitFor()],
        ] as const) {
          await page.goto(path);
          await ready();
          if (path === '/billing') await page.getByTestId('statement-row').first().waitFor();
          assert.equal(await page.evaluate(() => document.documentElement.classList.contains('dark')), scheme === 'dark');
          for (const v of await seriousA11yViolations(page)) found.push(`${path} (${scheme}): ${v}`);
        }
      }
      await page.goto('/billing');
      await page.getByTestId('chart-spend').locator('svg.recharts-surface[role="application"]').waitFor();
      await screenshot(page, 'billing-dark');
      await page.emulateMedia({ colorScheme: 'light' });
      assert.deepEqual(found, []);
    });

    test('a 375 px phone: the pages fit without sideways scrolling', async () => {
      const { page: phone } = await run.newPage({ viewport: { width: 375, height: 740 } });
      await run.signIn(phone, user.email, '/billing');
      for (const [path, ready] of [
        ['/billing', () => phone.getByTestId('statement-row').first().waitFor()],
        ['/keys', () => phone.getByTestId('key-row').first().waitFor()],
        ['/limits', () => phone.getByTestId('limit-model').first().waitFor()],
      ] as const) {
        if (path !== '/billing') await phone.goto(path);
        await ready();
        const overflow = await phone.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        assert.ok(overflow <= 0, `${path} scrolls sideways by ${overflow}px`);
      }
      await phone.goto('/billing');
      await phone.getByTestId('chart-spend').locator('svg.recharts-surface[role="application"]').waitFor();
      await screenshot(phone, 'billing-mobile');
      await phone.context().close();
    });

    test('no key material in any response this file received, nor in the client bundles', async () => {
      const scanned = await assertNoKeyMaterial(run, [user.apiKey]);
      assert.ok(scanned.responses > 20, `scanned ${scanned.responses} responses`);
    });
  });
