// Knowledge in Chromium: a collection made on /knowledge, two files uploaded at once and indexed (progress, then
// ready), a search that finds the passage, the collection attached in a chat's settings, and an answer whose
// citation names the file and quotes the passage; deleting a file takes its passages away.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { scriptedEmbeddingModel } from '../support/harness.ts';
import { type AppRun, browserSkip, startApp, type TestUser } from './support/app.ts';
import { ask, lastAnswer } from './support/chat.ts';
import { until, waitForCount, waitForText } from './support/wait.ts';

const skip = browserSkip();

const ALDABRA = [
  'Aldabra is a raised coral atoll in the Indian Ocean.',
  'Its lagoon is shallow: at low tide much of it drains, leaving channels about three metres deep.',
  ...Array.from({ length: 10 }, (_, i) => `Log ${i}: the supply boat came with fuel, flour and letters.`),
].join('\n\n');
const TORTOISES = 'Giant tortoises on Aldabra number about a hundred thousand; they graze the grassy "tortoise turf".';

if (skip) test('browser: knowledge', { skip }, () => {});
else
  describe('browser: knowledge', () => {
    let run: AppRun;
    let user: TestUser;
    let page: Page;

    before(async () => {
      run = await startApp({ models: (url) => [scriptedEmbeddingModel(url, { traits: ['default'] })] });
      user = await run.newUser({ usd: 5 });
      ({ page } = await run.newPage());
      await run.signIn(page, user.email);
      await page.getByTestId('composer-input').waitFor();
    });
    after(() => run?.close());

    test('a collection: created, two files uploaded and indexed, searched', async () => {
      await page.getByTestId('knowledge-link').click();
      await page.getByTestId('knowledge-page').waitFor();
      await page.getByTestId('new-collection-name').fill('Atolls');
      await page.getByTestId('create-collection').click();
      await page.getByTestId('collection-detail').waitFor();
      await page.getByTestId('knowledge-upload').setInputFiles([
        { name: 'aldabra.md', mimeType: 'text/markdown', buffer: Buffer.from(ALDABRA) },
        { name: 'tortoises.txt', mimeType: 'text/plain', buffer: Buffer.from(TORTOISES) },
      ]);
      const files = page.getByTestId('knowledge-file');
      await waitForCount(files, 2);
      await until(async () => (await page.locator('[data-testid="knowledge-file"][data-status="ready"]').count()) === 2, 'both files indexed');
      await waitForText(files.filter({ hasText: 'aldabra.md' }), /passages/);

      await page.getByTestId('knowledge-search').fill('How deep is the lagoon?');
      await page.getByTestId('knowledge-search-go').click();
      await waitForText(page.getByTestId('knowledge-hit').first(), /three metres deep/);
    });

    test('attached to a chat, the answer cites the file and the passage', async () => {
      await page.getByTestId('new-chat').click();
      await page.getByText('How can I help?').waitFor();
      await page.getByTestId('chat-settings').click();
      await page.getByRole('dialog').getByTestId('knowledge-option').first().check();
      await page.getByRole('dialog').getByRole('button', { name: 'Save' }).click();
      await ask(page, 'How deep is the lagoon of Aldabra? [[reply:About three metres at low tide [1].]]');

      const answer = lastAnswer(page);
      const cite = answer.getByTestId('citation');
      await waitForCount(cite, 1);
      assert.equal(await cite.innerText(), '1');
      assert.match((await cite.getAttribute('title')) ?? '', /aldabra\.md: [\s\S]*three metres deep/);
      const panel = answer.getByTestId('sources-panel');
      await waitForText(panel.getByTestId('source-file').first(), 'aldabra.md');
      await waitForText(panel.getByTestId('source-passage').first(), /three metres deep/);
      // The model was given the passage.
      assert.match(JSON.stringify(run.h.engine.requests.at(-1)?.body.messages), /three metres deep/);
    });

    test('deleting a file removes its passages', async () => {
      await page.goto('/knowledge');
      const row = page.getByTestId('knowledge-file').filter({ hasText: 'aldabra.md' });
      await row.getByTestId('delete-file').click();
      await waitForCount(page.getByTestId('knowledge-file'), 1);
      await page.getByTestId('knowledge-search').fill('lagoon deep');
      await page.getByTestId('knowledge-search-go').click();
      // The vector ranking still offers the nearest passage left; none is the deleted file's.
      await waitForText(page.getByTestId('knowledge-hit').first(), /tortoises\.txt/);
      assert.doesNotMatch(await page.locator('[data-testid="collection-detail"] ol').innerText(), /aldabra\.md|three metres/);
    });
  });
