// The prompt library and the operator's default model in Chromium, against the real app and service: a user saves a
// prompt on /prompts; the operator shares one there; in the chat, `/` opens the list (a listbox the message box
// controls), typing filters it, arrows and Enter insert the chosen prompt's text with its first {{placeholder}}
// selected, Escape closes it; another user never sees the first one's prompt. Then the operator picks the default
// model on /operator/models and a new chat starts on it (the picker shows it, the saved chat holds it). axe on the
// prompts page and the open menu, light and dark. Ends with the key-material scan.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { userConversations } from '../../lib/conversations/conversations.ts';
import { screenshot, seriousA11yViolations } from '../support/browser.ts';
import { type AppRun, browserSkip, startApp, type TestUser } from './support/app.ts';
import { ask, conversationId } from './support/chat.ts';
import { assertNoCspViolations, assertNoKeyMaterial } from './support/key-scan.ts';
import { textOf, until, waitForAttribute, waitForCount } from './support/wait.ts';

const skip = browserSkip();

if (skip) test('browser: prompts and the default model', { skip }, () => {});
else
  describe('browser: prompts and the default model', () => {
    let run: AppRun;
    let op: TestUser;
    let user: TestUser;
    let other: TestUser;
    let opPage: Page;
    let page: Page;

    before(async () => {
      run = await startApp();
      op = await run.newUser({ usd: 5 }); // the first user is the operator
      user = await run.newUser({ usd: 5 });
      other = await run.newUser({ usd: 5 });
      ({ page: opPage } = await run.newPage());
      ({ page } = await run.newPage());
      await run.signIn(opPage, op.email, '/prompts');
      await run.signIn(page, user.email, '/prompts');
    });
    after(() => run?.close());

    const input = () => page.getByTestId('composer-input');
    const menu = () => page.getByTestId('prompt-menu');

    async function addPrompt(p: Page, form: string, title: string, content: string): Promise<void> {
      const f = p.getByTestId(form);
      await f.getByTestId('prompt-title-input').fill(title);
      await f.getByTestId('prompt-content-input').fill(content);
      await f.getByTestId('prompt-save').click();
      await until(async () => (await f.getByTestId('prompt-title-input').inputValue()) === '', 'the form cleared after saving');
    }

    test('a user saves prompts on /prompts; the operator shares one with everyone', async () => {
      await page.getByTestId('prompts-page').waitFor();
      await page.getByTestId('prompt-empty').waitFor();
      // No sharing controls for a user.
      assert.equal(await page.getByTestId('prompt-shared-new').count(), 0);
      await addPrompt(page, 'prompt-new', 'Summarise', 'Summarise {{text}} in three bullet points.');
      await addPrompt(page, 'prompt-new', 'Translate to French', 'Translate this into French: {{text}}');
      await waitForCount(page.getByTestId('prompt-list').getByTestId('prompt-item'), 2);

      await opPage.getByTestId('prompts-page').waitFor();
      await addPrompt(opPage, 'prompt-shared-new', 'House style', 'Answer in our house style: short sentences, no jargon.');
      await waitForCount(opPage.getByTestId('prompt-shared-list').getByTestId('prompt-item'), 1);

      await page.reload();
      const shared = page.getByTestId('prompt-shared-list').getByTestId('prompt-item');
      await waitForCount(shared, 1);
      await waitForAttribute(shared.first(), 'data-shared', 'true');
      assert.equal(await shared.getByTestId('prompt-edit').count(), 0, 'a user cannot edit a shared prompt');
      await screenshot(page, 'prompts-page');
    });

    test('typing / opens the list; typing filters it; arrows and Enter insert the prompt, its placeholder selected', async () => {
      await page.goto('/');
      await input().waitFor();
      await input().fill('');
      await input().press('/');
      await menu().waitFor();
      const options = menu().getByRole('option');
      await waitForCount(options, 3);
      // The box controls the list, and its active option is announced.
      assert.equal(await input().getAttribute('aria-controls'), await menu().getAttribute('id'));
      const firstId = await options.first().getAttribute('id');
      assert.equal(await input().getAttribute('aria-activedescendant'), firstId);
      await screenshot(page, 'prompt-menu');

      await input().pressSequentially('tr');
      await waitForCount(options, 1);
      assert.match(await textOf(options.first()), /Translate to French/);
      await input().press('Backspace');
      await input().press('Backspace');
      await waitForCount(options, 3);
      await input().pressSequentially('s');
      // "Summarise" starts with s; the others only contain it.
      await until(async () => (await textOf(options.first())).startsWith('Summarise'), 'Summarise first');
      await input().press('ArrowDown');
      await waitForAttribute(options.nth(1), 'aria-selected', 'true');
      await input().press('ArrowUp');
      await waitForAttribute(options.first(), 'aria-selected', 'true');
      await input().press('Enter');
      await menu().waitFor({ state: 'detached' });
      assert.equal(await input().inputValue(), 'Summarise {{text}} in three bullet points.');
      const selection = await input().evaluate((el: HTMLTextAreaElement) => el.value.slice(el.selectionStart, el.selectionEnd));
      assert.equal(selection, '{{text}}', 'the placeholder is selected, to type over');
      await input().pressSequentially('the Lagoon README');
      assert.equal(await input().inputValue(), 'Summarise the Lagoon README in three bullet points.');
      // Nothing was sent by the Enter that picked the prompt.
      assert.equal(new URL(page.url()).pathname, '/');
    });

    test('Escape closes the list without changing the text; a click picks a shared prompt', async () => {
      await input().fill('');
      await input().press('/');
      await menu().waitFor();
      await input().press('Escape');
      await menu().waitFor({ state: 'detached' });
      assert.equal(await input().inputValue(), '/');
      // Typing on keeps it closed until the slash is typed again.
      await input().pressSequentially('h');
      assert.equal(await menu().count(), 0);
      await input().fill('');
      await input().pressSequentially('/house');
      await menu().getByRole('option').filter({ hasText: 'House style' }).click();
      assert.equal(await input().inputValue(), 'Answer in our house style: short sentences, no jargon.');
      // A line that merely contains a slash is a message, not a request for the list.
      await input().fill('either/or');
      assert.equal(await menu().count(), 0);
    });

    test("another user sees the shared prompt, never the first user's own", async () => {
      const { page: p } = await run.newPage();
      await run.signIn(p, other.email, '/');
      await p.getByTestId('composer-input').press('/');
      const options = p.getByTestId('prompt-menu').getByRole('option');
      await waitForCount(options, 1);
      assert.match(await textOf(options.first()), /House style/);
      const list = await p.evaluate(() => fetch('/api/app/prompts').then((r) => r.json()));
      assert.deepEqual(
        list.items.map((x: { title: string }) => x.title),
        ['House style'],
      );
      await p.close();
    });

    test('the operator picks the default model; a new chat starts on it', async () => {
      await page.goto('/');
      await until(
        async () => ((await page.getByTestId('model-picker').getAttribute('aria-label')) ?? '').includes('Scripted scripted-model'),
        'the built-in default',
      );
      await opPage.goto('/operator/models');
      const select = opPage.getByTestId('default-model-select');
      await select.waitFor();
      await select.selectOption('plain-model');
      await waitForAttribute(opPage.getByTestId('default-model-effective'), 'data-id', 'plain-model');
      await screenshot(opPage, 'operator-default-model');

      await page.goto('/');
      await until(
        async () => ((await page.getByTestId('model-picker').getAttribute('aria-label')) ?? '').includes('Scripted plain-model'),
        'the new default in the picker',
      );
      await ask(page, 'Hello [[reply:hi there]]');
      const id = await conversationId(page);
      const c = await userConversations(run.h.svc.store, user.user.id).get(id);
      assert.equal(c.modelId, 'plain-model');
    });

    test('axe: no serious or critical violation on /prompts and the open menu, light and dark', async () => {
      const found: string[] = [];
      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        await page.goto('/prompts');
        await page.getByTestId('prompt-list').waitFor();
        for (const v of await seriousA11yViolations(page)) found.push(`/prompts (${scheme}): ${v}`);
        await page.goto('/');
        await input().press('/');
        await menu().waitFor();
        for (const v of await seriousA11yViolations(page)) found.push(`the / menu (${scheme}): ${v}`);
      }
      assert.deepEqual(found, []);
    });

    test('no key material reached the browser; no CSP violation', async () => {
      assertNoCspViolations(run);
      const scanned = await assertNoKeyMaterial(run, [op.apiKey, user.apiKey, other.apiKey]);
      assert.ok(scanned.responses > 10, `scanned ${scanned.responses} responses`);
    });
  });
