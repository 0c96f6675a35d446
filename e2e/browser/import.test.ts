// Importing chat history in Chromium (issue 32): a ChatGPT export with an edited first message is uploaded from the
// account page; the page says what was taken and what was left out; the chat is in the history with both branches
// (‹ 1/2 ›), the older one readable, and nothing of the export's hidden context or tool messages in it.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { chatgptExport } from '../support/imports/chatgpt.ts';
import { type AppRun, browserSkip, startApp } from './support/app.ts';
import { assertNoKeyMaterial } from './support/key-scan.ts';
import { textOf, until } from './support/wait.ts';

const skip = browserSkip();

if (skip) test('browser: import', { skip }, () => {});
else
  describe('browser: import', () => {
    let run: AppRun;
    let page: Page;

    before(async () => {
      run = await startApp();
      const user = await run.newUser({ usd: 1, displayName: 'Importer' });
      ({ page } = await run.newPage());
      await run.signIn(page, user.email);
      await page.getByTestId('composer-input').waitFor();
    });
    after(() => run?.close());

    test('a ChatGPT export with branches, imported from the account page', async () => {
      await page.goto(`${run.h.origin}/account`);
      await page.getByTestId('import-file').setInputFiles({
        name: 'conversations.json',
        mimeType: 'application/json',
        buffer: Buffer.from(JSON.stringify(chatgptExport())),
      });
      const result = page.getByTestId('import-result');
      await result.waitFor();
      const said = await textOf(result);
      assert.match(said, /From ChatGPT: 1 chat imported \(5 messages, every branch kept\); 3 system, tool or hidden messages/);
      assert.match(await textOf(page.getByTestId('import-skipped')), /Empty: no messages with text/);

      await page.goto(run.h.origin);
      await page.getByText('Tide pools').first().click();
      await page.getByText('Mostly the same creatures.').waitFor();
      assert.equal(await textOf(page.getByTestId('branch-label').first()), '2/2');
      await page.getByTestId('branch-prev').first().click();
      await page.getByText('Anemones, crabs and sea stars.').waitFor();
      await page.getByText('And this one?').waitFor();
      await until(async () => !(await page.getByText('(search results)').count()), 'the tool message was left out');
      await assertNoKeyMaterial(run);
    });
  });
