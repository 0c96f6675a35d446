// Memory across chats in Chromium, against the real app and service (the scripted engine's [[echo_request]] answers
// with the prompt it received, so the test reads what the model was given): "remember that …" offers a suggestion,
// accepted it is saved; another chat's prompt holds it and its answer shows the marker; "Remember this" saves any
// message; the memory page edits, switches off and deletes; a deleted memory is no longer used; the chat's own
// switch leaves memories out. Ends with the key-material scan.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { userConversations } from '../../lib/conversations/conversations.ts';
import { screenshot } from '../support/browser.ts';
import { type AppRun, browserSkip, startApp, type TestUser } from './support/app.ts';
import { ask, conversationId, lastAnswer, lastQuestion } from './support/chat.ts';
import { assertNoCspViolations, assertNoKeyMaterial } from './support/key-scan.ts';
import { textOf, until, waitForAttribute, waitForCount } from './support/wait.ts';

const skip = browserSkip();

if (skip) test('browser: memory', { skip }, () => {});
else
  describe('browser: memory', () => {
    let run: AppRun;
    let user: TestUser;
    let page: Page;

    before(async () => {
      run = await startApp();
      user = await run.newUser({ usd: 5, displayName: 'Memory Tester' });
      ({ page } = await run.newPage());
      await run.signIn(page, user.email);
      await page.getByTestId('composer-input').waitFor();
    });
    after(() => run?.close());

    async function newChat(): Promise<void> {
      await page.getByTestId('new-chat').click();
      await until(() => new URL(page.url()).pathname === '/', 'the new-chat page');
      await page.getByText('How can I help?').waitFor();
    }
    /**
     * What the model was told for the answer just shown: the system messages of the prompt it echoed, read from the
     * stored answer (the rendered markdown is not the raw JSON once a prompt holds an earlier answer).
     */
    async function lastPrompt(): Promise<string> {
      const c = await userConversations(run.h.svc.store, user.user.id).get(await conversationId(page));
      const answer = c.messages.filter((m) => m.role === 'assistant').at(-1);
      return (JSON.parse(answer?.content ?? '[]') as { role: string; content: string }[])
        .filter((m) => m.role === 'system')
        .map((m) => m.content)
        .join('\n');
    }
    const memoryItems = () => page.getByTestId('memory-item');

    test('"remember that …" offers the fact; accepted, it is saved (and only then)', async () => {
      await ask(page, 'Remember that my favourite colour is teal');
      const question = lastQuestion(page);
      const chip = question.getByTestId('memory-suggestion');
      await chip.waitFor();
      assert.equal(await textOf(chip.getByTestId('memory-suggestion-text')), 'My favourite colour is teal');
      // Offered, not saved: the memory list is still empty.
      const before = await page.evaluate(() => fetch('/api/app/memories').then((r) => r.json()));
      assert.deepEqual(before.items, []);
      await screenshot(page, 'memory-suggestion');
      await chip.getByTestId('memory-accept').click();
      await question.getByTestId('memory-saved').waitFor();
      assert.equal(await chip.count(), 0);
      const after = await page.evaluate(() => fetch('/api/app/memories').then((r) => r.json()));
      assert.deepEqual(
        after.items.map((m: { content: string }) => m.content),
        ['My favourite colour is teal'],
      );
    });

    test('another chat is given it, and its answer shows which memory it used', async () => {
      await newChat();
      await ask(page, 'Which colour do I like? [[echo_request]]');
      assert.match(await lastPrompt(), /My favourite colour is teal/);
      const answer = lastAnswer(page);
      const marker = answer.getByTestId('memories-used');
      assert.match(await textOf(marker.locator('summary')), /Used 1 memory/);
      await marker.locator('summary').click();
      assert.equal(await textOf(marker.getByTestId('memory-used')), 'My favourite colour is teal');
      await screenshot(page, 'memory-used');
      // Ordinary messages are offered nothing.
      assert.equal(await lastQuestion(page).getByTestId('memory-suggestion').count(), 0);
    });

    test('"Remember this" saves any message, edited first', async () => {
      await ask(page, 'I live in Oslo and cycle to work');
      await lastQuestion(page).hover();
      await lastQuestion(page).getByTestId('remember-button').click();
      const dialog = page.getByTestId('remember-dialog');
      const input = dialog.getByTestId('remember-input');
      assert.equal(await input.inputValue(), 'I live in Oslo and cycle to work');
      await input.fill('I live in Oslo');
      await dialog.getByTestId('remember-save').click();
      await dialog.waitFor({ state: 'hidden' });
      await page.getByText('Saved to memory').first().waitFor();
    });

    test('the memory page: both listed; edit one, switch the other off', async () => {
      await page.getByTestId('memory-link').click();
      await page.getByTestId('memory-page').waitFor();
      await waitForCount(memoryItems(), 2);
      // Newest first.
      assert.equal(await textOf(memoryItems().nth(0).getByTestId('memory-text')), 'I live in Oslo');
      const teal = memoryItems().nth(1);
      assert.equal(await textOf(teal.getByTestId('memory-text')), 'My favourite colour is teal');

      await teal.getByTestId('memory-edit').click();
      await teal.getByTestId('memory-edit-input').fill('My favourite colour is deep teal');
      await teal.getByTestId('memory-edit-save').click();
      await until(async () => (await textOf(teal.getByTestId('memory-text'))) === 'My favourite colour is deep teal', 'the edit saved');

      const oslo = memoryItems().nth(0);
      // A click, not uncheck(): the box follows the saved state, which arrives a moment later.
      await oslo.getByTestId('memory-enabled').click();
      await waitForAttribute(oslo, 'data-enabled', 'false');
      await page.reload();
      await waitForCount(memoryItems(), 2);
      await waitForAttribute(memoryItems().nth(0), 'data-enabled', 'false');
      await screenshot(page, 'memory-page');

      await newChat();
      await ask(page, 'What do you know? [[echo_request]]');
      const prompt = await lastPrompt();
      assert.match(prompt, /My favourite colour is deep teal/);
      assert.doesNotMatch(prompt, /Oslo/);
    });

    test("the chat's own switch leaves memories out, from the next answer on, and stays off after a reload", async () => {
      await newChat();
      await ask(page, 'What do you know? [[echo_request]]');
      assert.match(await lastPrompt(), /teal/);
      await page.getByTestId('chat-settings').click();
      const setting = page.getByTestId('memory-setting');
      assert.equal(await setting.isChecked(), true);
      await setting.uncheck();
      await page.getByRole('dialog').getByRole('button', { name: 'Save' }).click();
      await ask(page, 'And now? [[echo_request]]');
      assert.doesNotMatch(await lastPrompt(), /teal/);
      assert.equal(await lastAnswer(page).getByTestId('memories-used').count(), 0);
      await page.reload();
      await page.getByTestId('chat-settings').click();
      assert.equal(await page.getByTestId('memory-setting').isChecked(), false);
      await page.keyboard.press('Escape');
    });

    test('deleted: gone from the page and from the next chat’s prompt', async () => {
      await page.getByTestId('memory-link').click();
      await waitForCount(memoryItems(), 2);
      const teal = memoryItems().filter({ hasText: 'deep teal' });
      await teal.getByTestId('memory-delete').click();
      await page.getByTestId('confirm-button').click();
      await waitForCount(memoryItems(), 1);
      await page.reload();
      await waitForCount(memoryItems(), 1);
      assert.equal(await textOf(memoryItems().first().getByTestId('memory-text')), 'I live in Oslo');

      await newChat();
      const text = await ask(page, 'Which colour do I like? [[echo_request]]');
      assert.doesNotMatch(text, /teal/);
      // The only memory left is switched off: the answer was given none, and shows no marker.
      assert.equal(await lastAnswer(page).getByTestId('memories-used').count(), 0);
    });

    test('the download holds every memory; the account page links it too', async () => {
      await page.getByTestId('memory-link').click();
      const href = await page.getByTestId('memory-export').getAttribute('href');
      assert.ok(href);
      const file = await page.evaluate((u) => fetch(u).then((r) => r.json()), href);
      assert.deepEqual(
        file.memories.map((m: { content: string; enabled: boolean }) => [m.content, m.enabled]),
        [['I live in Oslo', false]],
      );
      await page.goto(`${run.h.origin}/account`);
      assert.equal(await page.getByTestId('account-memories-export').getAttribute('href'), href);
    });

    test('no key material reached the browser; no CSP violation', async () => {
      assertNoCspViolations(run);
      const scanned = await assertNoKeyMaterial(run, [user.apiKey]);
      assert.ok(scanned.responses > 10, `scanned ${scanned.responses} responses`);
    });
  });
