// The chat in Chromium against the real app and service, with the scripted engine as the model: send and stream,
// stop (kept partial answer, upstream stream aborted), regenerate and edit-and-resend with ‹n/m› versions, reload
// mid-stream, history search / rename / delete, web citations, and the 402 and 429 messages, in English and in German
// (the error code's words from the catalogue, not the server's English). Ends with the key-material scan over
// everything the browser received.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { userConversations } from '../../lib/conversations/conversations.ts';
import { screenshot } from '../support/browser.ts';
import { scriptedModel } from '../support/harness.ts';
import { type AppRun, browserSkip, startApp, type TestUser } from './support/app.ts';
import { answerBody, ask, conversationId, lastAnswer, lastQuestion, messages, pickModel, send, waitForHighlighting } from './support/chat.ts';
import { assertNoKeyMaterial } from './support/key-scan.ts';
import { type FakeSearx, SEARCH_RESULTS, startFakeSearx } from './support/searx.ts';
import { textOf, until, waitForAttribute, waitForCount, waitForText } from './support/wait.ts';

const skip = browserSkip();

/** `w1 w2 … wN`: what [[tokens:N]] answers. */
const words = (n: number) => Array.from({ length: n }, (_, i) => `w${i + 1}`).join(' ');
const norm = (s: string) => s.replace(/\s+/g, ' ').trim();

if (skip) test('browser: chat', { skip }, () => {});
else
  describe('browser: chat', () => {
    let run: AppRun;
    let searx: FakeSearx;
    let user: TestUser;
    let page: Page;

    before(async () => {
      searx = await startFakeSearx();
      run = await startApp({
        env: searx.env,
        models: (url) => [scriptedModel('limited-model', url, { name: 'Limited model', tier: 'L' })],
        limits: { windowSeconds: 60, text: { default: { L: { rpm: 1, tpm: 1_000_000 } } } },
      });
      user = await run.newUser({ usd: 5, displayName: 'Chat Tester' });
      ({ page } = await run.newPage());
      await run.signIn(page, user.email);
      await page.getByTestId('composer-input').waitFor();
    });
    after(async () => {
      await run?.close();
      await searx?.close();
    });

    async function newChat(): Promise<void> {
      await page.getByTestId('new-chat').click();
      await until(() => new URL(page.url()).pathname === '/', 'the new-chat page');
      await page.getByText('How can I help?').waitFor();
    }

    test('send and stream: the answer grows token by token, renders markdown, and shows usage; Shift+Enter breaks a line', async () => {
      const input = page.getByTestId('composer-input');
      await input.fill('Show me markdown');
      await input.press('Shift+Enter');
      await input.pressSequentially('please [[markdown]] [[slow:60]]');
      assert.equal(await input.inputValue(), 'Show me markdown\nplease [[markdown]] [[slow:60]]');
      await input.press('Enter');

      const answer = lastAnswer(page);
      await waitForAttribute(answer, 'data-status', 'streaming');
      await page.getByTestId('stop-button').waitFor();
      // Part of the answer is on screen while the rest is still coming.
      const partial = await waitForText(answerBody(answer), 'Scripted answer');
      assert.ok(!partial.includes('console.log(answer)'), 'the code block arrives after the heading');
      await waitForAttribute(answer, 'data-status', 'complete');
      await page.getByTestId('send-button').waitFor();

      assert.equal(await textOf(lastQuestion(page)).then((t) => t.split('\n').slice(0, 2).join('\n')), 'Show me markdown\nplease [[markdown]] [[slow:60]]');
      const body = answerBody(answer);
      assert.equal(await body.locator('h2').innerText(), 'Scripted answer');
      assert.equal(await body.locator('table td').first().innerText(), 'alpha');
      assert.equal(await body.locator('li').count(), 2);
      assert.match(await body.locator('pre').innerText(), /const answer: number = 42;/);
      assert.match(await answer.getByTestId('usage').innerText(), /^\d+ in · 40 out · \$/);
      const id = await conversationId(page);
      await page.locator(`[data-testid="conversation-item"][data-id="${id}"]`).waitFor();
      await waitForHighlighting(page);
      await screenshot(page, 'chat-markdown');
    });

    test('stop: the partial answer stays (also after a reload) and the upstream stream is aborted; Esc stops too', async () => {
      await newChat();
      const aborted = run.h.engine.abortedStreams;
      await send(page, 'Count slowly [[tokens:600]] [[slow:20]]');
      const answer = lastAnswer(page);
      await waitForText(answerBody(answer), 'w10 ');
      await page.getByTestId('stop-button').click();
      await waitForAttribute(answer, 'data-status', 'stopped');
      await answer.getByText('Stopped', { exact: true }).waitFor();
      const kept = norm(await textOf(answerBody(answer)));
      assert.match(kept, /^w1 w2 w3 /);
      assert.ok(!kept.includes('w600'), 'the answer was cut short');
      await until(() => run.h.engine.abortedStreams > aborted, 'the engine to see its stream aborted');
      await until(() => run.h.engine.openStreams === 0, 'no stream left open upstream');

      const id = await conversationId(page);
      const stored = (await userConversations(run.h.svc.store, user.user.id).get(id)).messages.find((m) => m.role === 'assistant');
      assert.equal(stored?.status, 'stopped');
      assert.equal(norm(stored?.content ?? ''), kept);

      await page.reload();
      await waitForAttribute(lastAnswer(page), 'data-status', 'stopped');
      assert.equal(norm(await textOf(answerBody(lastAnswer(page)))), kept, 'the same partial answer after a reload');

      // Esc in the composer stops the next one.
      await send(page, 'Again [[tokens:600]] [[slow:20]]');
      await waitForCount(messages(page, 'assistant'), 2);
      await waitForText(answerBody(lastAnswer(page)), 'w5 ');
      await page.getByTestId('composer-input').press('Escape');
      await waitForAttribute(lastAnswer(page), 'data-status', 'stopped');
      await until(() => run.h.engine.abortedStreams > aborted + 1, 'the second stream aborted upstream');
    });

    test('regenerate with another model: a second version, and ‹1/2› navigation both ways', async () => {
      await newChat();
      assert.equal(await ask(page, 'Name a colour [[reply:Teal.]]'), 'Teal.');
      await pickModel(page, 'Scripted plain-model');
      await lastAnswer(page).getByTestId('regenerate-button').click();
      const answer = lastAnswer(page);
      await waitForText(answer.getByTestId('branch-label'), '2/2');
      await waitForAttribute(answer, 'data-status', 'complete');
      await waitForText(answer, 'Scripted plain-model');
      assert.equal(await textOf(answerBody(answer)), 'Teal.');

      await answer.getByTestId('branch-prev').click();
      await waitForText(lastAnswer(page).getByTestId('branch-label'), '1/2');
      await waitForText(lastAnswer(page), 'Scripted scripted-model');
      assert.equal(await lastAnswer(page).getByTestId('branch-prev').isDisabled(), true);
      await lastAnswer(page).getByTestId('branch-next').click();
      await waitForText(lastAnswer(page).getByTestId('branch-label'), '2/2');
      await waitForText(lastAnswer(page), 'Scripted plain-model');
      assert.equal(await messages(page, 'assistant').count(), 1, 'one version on screen at a time');
    });

    test('edit and resend: the new branch answers, the earlier branch stays reachable (‹1/2› both ways)', async () => {
      await newChat();
      assert.equal(await ask(page, 'First question [[reply:Answer A]]'), 'Answer A');
      await lastQuestion(page).getByTestId('edit-button').click();
      const editor = lastQuestion(page).locator('textarea');
      await editor.fill('Second question [[reply:Answer B]]');
      await page.getByRole('button', { name: 'Save & send' }).click();
      await waitForText(lastQuestion(page).getByTestId('branch-label'), '2/2');
      await waitForAttribute(lastAnswer(page), 'data-status', 'complete');
      await waitForText(answerBody(lastAnswer(page)), 'Answer B');
      assert.match(await textOf(lastQuestion(page)), /^Second question/);

      await lastQuestion(page).getByTestId('branch-prev').click();
      await waitForText(lastQuestion(page).getByTestId('branch-label'), '1/2');
      await waitForText(lastQuestion(page), /^First question/);
      await waitForText(answerBody(lastAnswer(page)), 'Answer A');
      await lastQuestion(page).getByTestId('branch-next').click();
      await waitForText(answerBody(lastAnswer(page)), 'Answer B');
      assert.equal(await messages(page, 'user').count(), 1);

      const id = await conversationId(page);
      const all = (await userConversations(run.h.svc.store, user.user.id).get(id)).messages;
      assert.equal(all.filter((m) => m.role === 'user').length, 2, 'both questions are stored as siblings');
      assert.equal(new Set(all.filter((m) => m.role === 'user').map((m) => m.parentId)).size, 1);
    });

    test('reload mid-stream: the page reattaches, catches up and finishes without duplicated text', async () => {
      await newChat();
      await send(page, 'Long answer [[tokens:400]] [[slow:20]]');
      await conversationId(page);
      await waitForText(answerBody(lastAnswer(page)), 'w15 ');
      await page.reload();
      const answer = lastAnswer(page);
      await waitForAttribute(answer, 'data-status', 'streaming');
      await waitForAttribute(answer, 'data-status', 'complete', 30_000);
      const text = norm(await textOf(answerBody(answer)));
      assert.equal(text, words(400));
      assert.equal(text.split(' w1 ').length, 1, 'no repeated start');
    });

    test('history: search by title and by message text, rename (kept after reload), delete', async () => {
      await newChat();
      // The automatic title is the first sentence, so "puffin" is only in the answer's text.
      await ask(page, 'Planning a trip to Reykjavik. What should I pack? [[reply:Pack a warm puffin sweater.]]');
      const id = await conversationId(page);
      assert.equal((await userConversations(run.h.svc.store, user.user.id).conversation(id)).title, 'Planning a trip to Reykjavik');
      const item = page.locator(`[data-testid="conversation-item"][data-id="${id}"]`);
      await item.waitFor();

      const search = page.getByTestId('sidebar-search');
      await search.fill('Reykjavik');
      await waitForText(page.getByTestId('search-hit').first(), 'Planning a trip to Reykjavik');
      // "puffin" is in the messages, not the title.
      await search.fill('puffin');
      const hit = page.getByTestId('search-hit').first();
      await until(
        async () =>
          (await page.getByTestId('search-results').getAttribute('aria-busy')) === 'false' && (await hit.locator('mark').first().innerText()) === 'puffin',
        'the results for "puffin", the match highlighted',
      );
      assert.match(await textOf(hit), /^Planning a trip to Reykjavik\n[\s\S]*puffin sweater/, 'the hit names its chat, then shows the matching text');
      assert.equal(await page.getByTestId('search-hit').count(), 1);
      await search.fill('');
      await item.waitFor();

      await item.getByTestId('conversation-menu').click();
      await page.getByTestId('rename-conversation').click();
      const rename = page.getByTestId('rename-input');
      await rename.fill('Iceland packing list');
      await rename.press('Enter');
      await waitForText(item, 'Iceland packing list');
      await page.reload();
      await waitForText(page.locator(`[data-testid="conversation-item"][data-id="${id}"]`), 'Iceland packing list');
      assert.equal((await userConversations(run.h.svc.store, user.user.id).conversation(id)).title, 'Iceland packing list');

      await page.locator(`[data-testid="conversation-item"][data-id="${id}"]`).getByTestId('conversation-menu').click();
      await page.getByTestId('delete-conversation').click();
      await page.getByTestId('confirm-button').click();
      await waitForCount(page.locator(`[data-testid="conversation-item"][data-id="${id}"]`), 0);
      await until(() => new URL(page.url()).pathname === '/', 'leaving the deleted chat');
      await assert.rejects(userConversations(run.h.svc.store, user.user.id).conversation(id), /not found/i);
    });

    test('citations: web search on, numbered superscript links and a sources panel', async () => {
      await newChat();
      await page.getByTestId('chat-settings').click();
      await page.getByRole('dialog').getByText('On', { exact: true }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Save' }).click();
      const searched = searx.queries.length;
      await ask(page, 'Tell me about lagoons [[reply:Lagoons are shallow [1] and reefs enclose them [1, 2].]]');
      assert.equal(searx.queries.length, searched + 1, 'the service searched once');

      const answer = lastAnswer(page);
      const links = answer.getByTestId('citation');
      await waitForCount(links, 3);
      assert.deepEqual(await links.allInnerTexts(), ['1', '1', '2']);
      assert.equal(await links.first().getAttribute('href'), SEARCH_RESULTS[0].url);
      assert.equal(await links.nth(2).getAttribute('href'), SEARCH_RESULTS[1].url);
      assert.equal(await links.first().evaluate((a) => a.parentElement?.tagName), 'SUP');
      assert.equal(await links.first().getAttribute('rel'), 'noopener noreferrer');

      const panel = answer.getByTestId('sources-panel');
      const sources = panel.locator('li');
      await waitForCount(sources, 3);
      for (const [i, r] of SEARCH_RESULTS.entries()) {
        assert.match(await sources.nth(i).innerText(), new RegExp(`${r.title}[\\s\\S]*example\\.org`));
        assert.equal(await sources.nth(i).locator('a').getAttribute('href'), r.url);
      }
      assert.match(await sources.first().innerText(), /2026/, 'the source date is shown');
    });

    test('429: the rate-limit message says when to retry', async () => {
      await newChat();
      await pickModel(page, 'Limited model');
      await ask(page, 'one');
      await ask(page, 'two', 'error');
      const banner = lastAnswer(page).getByTestId('error-banner');
      assert.equal(await banner.getAttribute('data-status'), '429');
      assert.match(await textOf(banner), /Rate limited — try again in \d+ ?(s|min)\b/);
      const retry = banner.getByRole('button', { name: /Retry in/ });
      assert.equal(await retry.isDisabled(), true, 'retry waits for the limit to reset');
    });

    test('402: a user without credit is told so, with a link to the account page', async () => {
      const broke = await run.newUser();
      const { page: p } = await run.newPage();
      await run.signIn(p, broke.email);
      await ask(p, 'Hello?', 'error');
      const banner = lastAnswer(p).getByTestId('error-banner');
      assert.equal(await banner.getAttribute('data-status'), '402');
      assert.match(await textOf(banner), /out of credit/i);
      const link = banner.getByRole('link', { name: 'Add credit' });
      assert.equal(await link.getAttribute('href'), '/account');
      await link.click();
      await p.getByTestId('account-page').waitFor();
      await waitForText(p.getByTestId('balance-usd'), /^\$0\.00$/);
      await p.getByTestId('top-up-how-to').waitFor();
    });

    test('in German: out of credit and rate limited are said in German, never in the server’s English', async () => {
      const german = async (u: TestUser) => {
        const { page: p } = await run.newPage();
        await p.context().addCookies([{ name: 'lagoon-locale', value: 'de', url: run.h.origin }]);
        await run.signIn(p, u.email);
        await p.getByTestId('composer-input').waitFor();
        return p;
      };
      const broke = await german(await run.newUser());
      await ask(broke, 'Hallo?', 'error');
      const noCredit = lastAnswer(broke).getByTestId('error-banner');
      assert.equal(await noCredit.getAttribute('data-status'), '402');
      const owed = await textOf(noCredit);
      assert.match(owed, /Ihr Guthaben ist aufgebraucht\./);
      // The detail under the headline is the code's catalogue text, not "Insufficient USD or Diem balance …".
      assert.match(owed, /Ihr USD- oder DIEM-Guthaben reicht für diese Anfrage nicht aus\./);
      assert.doesNotMatch(owed, /Insufficient|balance to complete/);
      assert.equal(await noCredit.getByRole('link', { name: 'Guthaben aufladen' }).getAttribute('href'), '/account');

      const p = await german(await run.newUser({ usd: 5 }));
      await pickModel(p, 'Limited model');
      await ask(p, 'eins');
      await ask(p, 'zwei', 'error');
      const limited = lastAnswer(p).getByTestId('error-banner');
      assert.equal(await limited.getAttribute('data-status'), '429');
      const wait = await textOf(limited);
      assert.match(wait, /Ratenlimit erreicht – versuchen Sie es in \d+ ?(s|min) erneut\./);
      assert.match(wait, /Sie haben mehr Anfragen gesendet, als Ihre Limits derzeit erlauben\./);
      assert.doesNotMatch(wait, /Rate limit exceeded|requests per minute/);
      assert.equal(await limited.getByRole('button', { name: /^Erneut in/ }).isDisabled(), true);
      await broke.context().close();
      await p.context().close();
    });

    test('no key material in any response this file received, nor in the client bundles', async () => {
      const scanned = await assertNoKeyMaterial(run);
      assert.ok(scanned.responses > 50, `scanned ${scanned.responses} responses`);
    });
  });
