// The rough edges a newcomer hit (issue 32), each driven in Chromium as that newcomer met it: an export that wrote
// another version of the chat than the one on screen, and a picked version forgotten on reload; out of credit with
// nowhere to go (a shell command for the operator, a wallet top-up form on a server that takes no top-ups, a wallet
// newcomer without the daily DIEM everyone else starts with); a model that is down reported as busy; a chat whose
// model was disabled failing with a raw error; costs shown as $0.00 or on a dollar axis when DIEM was charged. This
// server has no x402 rail, one model whose engine is down, and the catalogue's demo image generator; the first screen
// talking to operators (README and npx hints, the demo warning twice, nothing on the free DIEM); an unknown address
// answered by Next's bare 404 outside the app, its inline style blocked by the CSP; image tools offered where they
// cannot work (files in the image mode, the demo remover on demo pictures); eight links above the history and the
// tier named two ways; axe findings on a chat with code and a settings popover that let focus out; two messages for
// one short password at sign-up; a composer that sent during a rate-limit countdown.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { setDiemDaily } from '../../lib/billing/ledger.ts';
import { userConversations } from '../../lib/conversations/conversations.ts';
import { toMicros } from '../../lib/billing/money.ts';
import { DEFAULT_CATALOGUE } from '../../lib/models/catalogue.ts';
import { catalogueModel, scriptedModel } from '../support/harness.ts';
import { seriousA11yViolations } from '../support/browser.ts';
import { freePort } from '../support/processes.ts';
import { type AppRun, browserSkip, startApp, type TestUser } from './support/app.ts';
import { answerBody, ask, conversationId, lastAnswer, lastQuestion, pickModel, send, waitForHighlighting } from './support/chat.ts';
import { assertNoKeyMaterial } from './support/key-scan.ts';
import { textOf, until, waitForAttribute, waitForText } from './support/wait.ts';
import { injectTestWallets } from './wallet-test-wallets.ts';

const skip = browserSkip();
const demoImage = (JSON.parse(fs.readFileSync(DEFAULT_CATALOGUE, 'utf8')).models as { id: string }[]).find((m) => m.id === 'lagoon-demo-image')!;

if (skip) test('browser: rough edges', { skip }, () => {});
else
  describe('browser: rough edges', () => {
    let run: AppRun;
    let op: TestUser;
    let user: TestUser;
    let page: Page;

    before(async () => {
      const closedPort = await freePort();
      run = await startApp({
        env: { LAGOON_ENGINE_CHECK_MS: '1000' },
        limits: { windowSeconds: 60, text: { default: { L: { rpm: 1, tpm: 1_000_000 } } } },
        models: (url) => [
          scriptedModel('limited-model', url, { name: 'Limited model', tier: 'L' }),
          demoImage,
          catalogueModel('lagoon-demo'),
          catalogueModel('lagoon-demo-background-remove'),
          scriptedModel('sleepy-model', url, {
            name: 'Sleepy model',
            engine: { kind: 'openai', baseUrl: `http://127.0.0.1:${closedPort}/v1`, model: 'scripted', timeoutMs: 2000 },
          }),
        ],
        // Sign-in texts are bound to the origin the browser reaches (a random port here).
        publicUrl: (origin) => origin,
      });
      op = await run.newUser({ usd: 1, displayName: 'Operator' });
      user = await run.newUser({ usd: 5, displayName: 'Newcomer' });
      ({ page } = await run.newPage());
      await run.signIn(page, user.email);
      await page.getByTestId('composer-input').waitFor();
    });
    after(async () => {
      await run?.close();
    });

    async function waitFor<T extends { waitFor(): Promise<void> }>(l: T): Promise<T> {
      await l.waitFor();
      return l;
    }

    async function download(id: string, testId: string): Promise<string> {
      await page.locator(`[data-testid="conversation-item"][data-id="${id}"]`).getByTestId('conversation-menu').click();
      const [file] = await Promise.all([page.waitForEvent('download'), page.getByTestId(testId).click()]);
      return fs.readFileSync((await file.path()) as string, 'utf8');
    }

    test('export writes the version on screen (every version in JSON), and the version picked survives a reload', async () => {
      await ask(page, 'First question [[reply:Answer A]]');
      const id = await conversationId(page);
      await lastQuestion(page).getByTestId('edit-button').click();
      await lastQuestion(page).locator('textarea').fill('Second question [[reply:Answer B]]');
      await page.getByRole('button', { name: 'Save & send' }).click();
      await waitForText(lastQuestion(page).getByTestId('branch-label'), '2/2');
      await waitForAttribute(lastAnswer(page), 'data-status', 'complete');
      await lastQuestion(page).getByTestId('branch-prev').click();
      await waitForText(lastQuestion(page).getByTestId('branch-label'), '1/2');
      await waitForText(answerBody(lastAnswer(page)), 'Answer A');

      const md = await download(id, 'export-md');
      assert.match(md, /## User\n\nFirst question/);
      assert.match(md, /Answer A/);
      assert.doesNotMatch(md, /Second question|Answer B/, 'only the version on screen');
      const json = JSON.parse(await download(id, 'export-json'));
      assert.deepEqual(
        json.messages.map((m: { content: string }) => m.content.replace(/ \[\[.*$/, '')),
        ['First question', 'Answer A'],
      );
      const all = JSON.parse(await download(id, 'export-json-all'));
      assert.equal(all.messages.length, 4, 'both versions, question and answer each');
      assert.deepEqual(all.messages.filter((m: { parentId: string | null }) => m.parentId === null).length, 2, 'two versions of the first message');

      await page.reload();
      await waitForText(lastQuestion(page).getByTestId('branch-label'), '1/2');
      await waitForText(answerBody(lastAnswer(page)), 'Answer A');
      // Moving on to the newest version is remembered just the same.
      await lastQuestion(page).getByTestId('branch-next').click();
      await waitForText(answerBody(lastAnswer(page)), 'Answer B');
      await page.reload();
      await waitForText(lastQuestion(page).getByTestId('branch-label'), '2/2');
      assert.match(await download(id, 'export-md'), /Answer B/);
    });

    test('out of credit: "Add credit" leads to words a user can act on, never a shell command', async () => {
      const broke = await run.newUser();
      const { page: p } = await run.newPage();
      await run.signIn(p, broke.email);
      await ask(p, 'Hello?', 'error');
      const banner = lastAnswer(p).getByTestId('error-banner');
      assert.equal(await banner.getAttribute('data-status'), '402');
      await banner.getByRole('link', { name: 'Add credit' }).click();
      const howTo = await textOf(await waitFor(p.getByTestId('top-up-how-to')));
      assert.match(howTo, /added by its operator: ask them to add credit to the account you signed in with \(.+@.+\)/);
      assert.doesNotMatch(howTo, /npx|lagoon credit|--account|--usd/);
      assert.equal(await p.getByTestId('top-up-how-to').locator('code').count(), 0);
      assert.equal(await p.getByTestId('wallet-top-up').count(), 0);
    });

    test('a wallet newcomer on a server without USDC top-ups: the daily DIEM to start with, no top-up form that cannot work', async () => {
      const { page: p, rec } = await run.newPage();
      await injectTestWallets(rec.context, privateKeyToAccount(generatePrivateKey()));
      await p.goto('/sign-in');
      await p.getByTestId('wallet-continue').click();
      await p.getByTestId('wallet-option').filter({ hasText: 'E2E Test Wallet' }).click();
      await until(() => new URL(p.url()).pathname === '/', 'the chat page after signing in');
      // The first message goes through on the free allowance.
      assert.match(await ask(p, 'Hello from a wallet [[reply:Welcome]]'), /Welcome/);
      await p.goto('/account');
      await waitForText(p.getByTestId('top-up-how-to'), /This server takes no USDC top-ups on Base at the moment; ask its operator for credit\./);
      assert.match(await textOf(p.getByTestId('top-up-how-to')), /free allowance of 1 DIEM refills every day/);
      assert.equal(await p.getByTestId('wallet-top-up').count(), 0, 'no top-up form without a rail');
      await p.goto('/billing');
      await p.getByTestId('billing-add-credit').waitFor();
      assert.equal(await p.getByTestId('wallet-top-up').count(), 0);
    });

    test('a model that is down: marked in the picker, said to be unreachable (not busy, no countdown), another one suggested', async () => {
      const { page: p } = await run.newPage();
      await run.signIn(p, user.email);
      const sleepy = async () => {
        await p.getByTestId('model-picker').click();
        const text = await p.getByRole('option').filter({ hasText: 'Sleepy model' }).innerText();
        await p.keyboard.press('Escape');
        return text;
      };
      // Marked once the server has checked its engine (at start, then every second here).
      await until(async () => {
        await p.reload();
        return /Can’t be reached right now: .*refused the connection/.test(await sleepy());
      }, 'the picker to mark the model that is down');
      await pickModel(p, 'Sleepy model');
      assert.match((await p.getByTestId('model-picker').getAttribute('aria-label')) ?? '', /Sleepy model \(can’t be reached\)/);

      await send(p, 'Hello?');
      const banner = p.getByTestId('error-banner').last();
      await waitForText(banner, /This model can’t be reached right now\./);
      assert.doesNotMatch(await textOf(banner), /capacity|Retry in/);
      await waitForText(banner.getByTestId('error-suggestion'), /Scripted scripted-model is working/);
      await banner.getByTestId('error-pick-model').click();
      await p.getByRole('listbox', { name: 'Models' }).waitFor();
      await p.getByRole('option').filter({ hasText: 'Scripted scripted-model' }).click();
      await banner.getByRole('button', { name: 'Retry' }).click();
      await waitForAttribute(lastAnswer(p), 'data-status', 'complete');
      await waitForText(lastAnswer(p), 'Scripted scripted-model');
    });

    test('a chat whose model was disabled says so before sending, with the picker open on the models offered', async () => {
      const { page: p } = await run.newPage();
      await run.signIn(p, user.email);
      await pickModel(p, 'Scripted plain-model');
      await ask(p, 'Hi [[reply:Plain answer]]');
      await conversationId(p);
      const { page: opPage } = await run.newPage();
      await run.signIn(opPage, op.email, '/operator/models');
      const row = opPage.locator('[data-testid="model-row"][data-id="plain-model"]');
      await row.getByTestId('model-toggle').click();
      await waitForAttribute(row, 'data-disabled', 'true');
      try {
        await p.reload();
        await p.getByText('This chat’s model (plain-model) is no longer offered on this server: pick another model to go on.').waitFor();
        await p.getByRole('listbox', { name: 'Models' }).waitFor();
        await p.getByRole('option').filter({ hasText: 'Scripted scripted-model' }).click();
        assert.match(await ask(p, 'Still there? [[reply:Yes]]'), /Yes/);
        assert.equal(await p.getByText(/no longer offered/).count(), 0);
      } finally {
        await row.getByTestId('model-toggle').click();
        await waitForAttribute(row, 'data-disabled', 'false');
      }
    });

    test('what was charged in DIEM reads DIEM: chat and image footers, and the billing chart on its own DIEM axis', async () => {
      const daily = await run.newUser();
      await setDiemDaily(run.h.svc.store, daily.user.accountId, toMicros(5));
      const { page: p } = await run.newPage();
      await run.signIn(p, daily.email);
      await ask(p, 'Hello [[reply:Hi there]]');
      const usage = await textOf(lastAnswer(p).getByTestId('usage'));
      assert.match(usage, /· [\d.]+ DIEM$/);
      assert.doesNotMatch(usage, /\$/);

      await p.getByTestId('image-mode-toggle').click();
      await send(p, 'a red sunset over the sea');
      const image = p.getByTestId('image-message').last();
      await waitForAttribute(image, 'data-status', 'complete', 30_000);
      const cost = await textOf(image.getByTestId('image-cost'));
      assert.match(cost, /^0\.00\d+ DIEM$/, `the image footer: ${cost}`);

      await p.goto('/billing');
      const chart = p.getByTestId('chart-spend-diem');
      await waitForText(chart, /DIEM spent per UTC day from .+ stacked by model; the most on .+: [\d.]+ DIEM\./);
      assert.doesNotMatch(await textOf(chart), /\$/);
      assert.equal(await p.getByTestId('chart-spend').count(), 0, 'no dollar chart when nothing was charged in USD');
    });

    test('an unknown address: "Page not found" inside the app, with its sidebar, status 404, nothing blocked by the CSP', async () => {
      const res = await page.goto('/no-such-page/here');
      assert.equal(res?.status(), 404);
      await waitForText(page.getByTestId('not-found-page').getByRole('heading', { level: 1 }), 'Page not found');
      await page.getByTestId('new-chat').waitFor();
      assert.equal(await page.title(), 'Page not found · Lagoon');
      await page.getByTestId('not-found-page').getByRole('link', { name: 'Start a new chat' }).click();
      await page.getByTestId('composer-input').waitFor();
    });

    test('the first screen of a user who is not the operator: the demo said once, no operator hints, their free DIEM', async () => {
      const second = await run.newUser({ displayName: 'Second' });
      await setDiemDaily(run.h.svc.store, second.user.accountId, toMicros(1));
      const { page: p } = await run.newPage();
      await run.signIn(p, second.email);
      await waitForText(p.getByTestId('free-allowance'), /You have 1 of your free 1 DIEM left today; it refills every day at 00:00 UTC\./);
      await p.getByTestId('model-picker').click();
      await p.getByRole('option').filter({ hasText: 'Lagoon Demo' }).click();
      const notice = p.getByTestId('demo-notice');
      await waitForText(notice, /pick another model above if there is one, or ask this server’s operator to add one/);
      const screen = await textOf(p.getByTestId('chat-view'));
      assert.doesNotMatch(screen, /README|npx|lagoon model add/, 'nothing meant for the operator');
      assert.equal((screen.match(/meaningless/g) ?? []).length, 1, 'the demo warning once');
      await p.getByTestId('model-picker').click();
      const option = p.getByRole('option').filter({ hasText: 'Lagoon Demo' });
      assert.doesNotMatch(await textOf(option), /README|npx/);
      await p.keyboard.press('Escape');
    });

    test('image tools only where they can work: no files in the image mode, no demo cut-out of a demo picture', async () => {
      const { page: p } = await run.newPage();
      await run.signIn(p, user.email);
      const attach = p.getByTestId('attach-button');
      await until(async () => !(await attach.isDisabled()), 'the attach button in a chat');
      await p.getByTestId('image-mode-toggle').click();
      await until(() => attach.isDisabled(), 'the attach button off in the image mode');
      assert.match((await attach.getAttribute('aria-label')) ?? '', /the image mode makes pictures from a description and takes no files/);
      await send(p, 'a lighthouse at dusk');
      const image = p.getByTestId('image-message').last();
      await waitForAttribute(image, 'data-status', 'complete', 30_000);
      const cut = image.getByTestId('image-remove-bg').first();
      // The reason needs the image models, which load on their own: wait for it rather than read the first render.
      await waitForAttribute(cut, 'aria-label', /Remove background: not for demo pictures \(.+ needs a flat background\)/);
      assert.equal(await cut.isDisabled(), true);
      assert.equal(await image.getByTestId('image-upscale').first().isDisabled(), false, 'what works stays offered');
      await p.getByTestId('image-mode-toggle').click();
      await until(async () => !(await attach.isDisabled()), 'attaching back with the image mode off');
    });

    test('navigation at 1280×800: the history comes first, one Account area in the menu, the tier in the same words', async () => {
      const reader = await run.newUser({ displayName: 'Reader' });
      const chats = userConversations(run.h.svc.store, reader.user.id);
      for (let i = 1; i <= 14; i++) await chats.create({ title: `Chat number ${i}` });
      const { page: p } = await run.newPage({ viewport: { width: 1280, height: 800 } });
      await run.signIn(p, reader.email);
      const history = p.getByRole('navigation', { name: 'Chat history' });
      await history.getByTestId('conversation-item').first().waitFor();
      const box = await history.boundingBox();
      const visible = await history
        .getByTestId('conversation-item')
        .evaluateAll((items, bottom) => items.filter((e) => e.getBoundingClientRect().bottom <= bottom).length, (box?.y ?? 0) + (box?.height ?? 0));
      assert.ok(visible >= 7, `${visible} chats in view`);
      const sidebar = p.getByTestId('sidebar');
      for (const id of ['usage-link', 'billing-link', 'keys-link', 'limits-link'])
        assert.equal(await sidebar.getByTestId(id).count(), 0, `${id} is in the Account area, not above the history`);

      // One entry for a plain chat user; the area's pages are its tabs, named the same on every page.
      await p.getByTestId('user-menu').click();
      const account = p.getByRole('group', { name: 'Account' });
      assert.deepEqual(
        (await account.getByRole('menuitem').allInnerTexts()).map((t) => t.trim()),
        ['Account'],
      );
      await account.getByRole('menuitem', { name: 'Account' }).click();
      const TABS = ['Account', 'Usage', 'Billing', 'API keys', 'Rate limits', 'Alerts'];
      for (const [testId, pagePath] of [
        ['account-page', '/account'],
        ['usage-page', '/usage'],
        ['billing-page', '/billing'],
        ['keys-page', '/keys'],
        ['limits-page', '/limits'],
        ['alerts-page', '/alerts'],
      ]) {
        if (new URL(p.url()).pathname !== pagePath) await p.getByTestId('account-tabs').locator(`[data-href="${pagePath}"]`).click();
        await p.getByTestId(testId).waitFor();
        const tabs = p.getByTestId('account-tabs').getByRole('link');
        assert.deepEqual(
          (await tabs.allInnerTexts()).map((t) => t.trim()),
          TABS,
          `the same tabs on ${pagePath}`,
        );
        assert.equal(await p.getByTestId('account-tabs').locator('[aria-current="page"]').getAttribute('data-href'), pagePath);
      }
      await p.getByTestId('account-tabs').locator('[data-href="/limits"]').click();
      await waitForText(p.getByTestId('limits-page'), /Standard/);
      assert.doesNotMatch(await textOf(p.getByTestId('limits-page')), /\bDefault\b/);
    });

    test('accessibility: no serious axe finding on a chat with code, light and dark; the settings popover keeps focus', async () => {
      const { page: p } = await run.newPage();
      await run.signIn(p, user.email);
      await ask(p, 'Show me code [[markdown]]');
      await waitForHighlighting(p);
      const found: string[] = [];
      for (const scheme of ['light', 'dark'] as const) {
        await p.emulateMedia({ colorScheme: scheme });
        await p.reload();
        await waitForAttribute(lastAnswer(p), 'data-status', 'complete');
        await waitForHighlighting(p);
        for (const v of await seriousA11yViolations(p)) found.push(`${scheme}: ${v}`);
      }
      assert.deepEqual(found, []);
      await p.emulateMedia({ colorScheme: 'light' });

      await p.getByTestId('chat-settings').click();
      const dialog = p.getByRole('dialog', { name: 'Chat settings' });
      await dialog.waitFor();
      for (const key of ['Tab', 'Shift+Tab'] as const) {
        for (let i = 0; i < 25; i++) {
          await p.keyboard.press(key);
          assert.ok(await dialog.evaluate((d) => d.contains(document.activeElement)), `focus left the open popover after ${i + 1} × ${key}`);
        }
      }
      await p.keyboard.press('Escape');
      await until(async () => (await dialog.count()) === 0, 'the popover closed');
      assert.equal(await p.evaluate(() => document.activeElement?.getAttribute('data-testid')), 'chat-settings', 'focus back on its button');
    });

    test('sign-up with a short password: one message about it, not two', async () => {
      const { page: p } = await run.newPage();
      await p.goto('/sign-up');
      const form = p.getByTestId('auth-form');
      await form.getByLabel('Email').fill('short-password@example.test');
      await form.getByLabel('Password', { exact: true }).fill('short');
      await p.getByTestId('auth-submit').click();
      await waitForText(p.getByTestId('password-error'), /Use at least 10 characters/);
      assert.equal(((await textOf(form)).match(/10 characters/g) ?? []).length, 1, await textOf(form));
    });

    test('during a rate-limit countdown the composer waits too (another model lifts the wait)', async () => {
      const { page: p } = await run.newPage();
      await run.signIn(p, user.email);
      await pickModel(p, 'Limited model');
      await ask(p, 'one');
      await ask(p, 'two', 'error');
      assert.equal(await lastAnswer(p).getByTestId('error-banner').getAttribute('data-status'), '429');
      const input = p.getByTestId('composer-input');
      await input.fill('three');
      await waitForText(p.getByText(/Rate limited: you can send again in \d+ ?(s|min)/), /or pick another model/);
      assert.equal(await p.getByTestId('send-button').isDisabled(), true);
      const answers = await p.locator('[data-testid="message"][data-role="assistant"]').count();
      await input.press('Enter');
      await new Promise((r) => setTimeout(r, 500));
      assert.equal(await p.locator('[data-testid="message"][data-role="assistant"]').count(), answers, 'Enter sent nothing');
      await pickModel(p, 'Scripted scripted-model');
      await until(async () => !(await p.getByTestId('send-button').isDisabled()), 'sending again on another model');
    });

    test('no key material reached the browser', async () => {
      await assertNoKeyMaterial(run);
    });
  });
