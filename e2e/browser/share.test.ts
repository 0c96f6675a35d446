// Share links and temporary chats in Chromium: the owner switches to an older branch and shares it from the chat
// header; the link opened signed out shows that branch only (never indexed), and passes axe; another signed-in user
// continues it as a chat of their own; the owner revokes it from the account page and the link becomes the 404 page.
// Then a temporary chat: answered, never in the history, and gone after a reload; and one with a document attached
// and an MCP server switched on, whose text reaches the model and whose tool call shows, with nothing stored (its
// settings offer no memory or knowledge base, which it would ignore, and say why).
// Ends with the key-material scan and the CSP check.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { userConversations } from '../../lib/conversations/conversations.ts';
import { McpServers } from '../../lib/tools/mcp-servers.ts';
import { screenshot, seriousA11yViolations } from '../support/browser.ts';
import { startHttpMcp, type TestHttpMcp } from '../support/mcp/http-server.ts';
import { type AppRun, browserSkip, startApp, type TestUser } from './support/app.ts';
import { ask, conversationId, lastAnswer, lastQuestion, messages } from './support/chat.ts';
import { documents } from './support/documents.ts';
import { assertNoCspViolations, assertNoKeyMaterial } from './support/key-scan.ts';
import { textOf, until, waitForAttribute, waitForCount, waitForText } from './support/wait.ts';

const skip = browserSkip();

if (skip) test('browser: share links and temporary chats', { skip }, () => {});
else
  describe('browser: share links and temporary chats', () => {
    let run: AppRun;
    let mcp: TestHttpMcp;
    let alice: TestUser;
    let bob: TestUser;
    let page: Page;
    let chatId: string;
    let link = '';

    before(async () => {
      mcp = await startHttpMcp();
      run = await startApp({ env: { LAGOON_FETCH_ALLOW_HOSTS: '127.0.0.1' } });
      await new McpServers(run.h.svc.store, run.h.svc.secrets).add({ name: 'calc', transport: 'http', url: mcp.url });
      alice = await run.newUser({ usd: 5 });
      bob = await run.newUser({ usd: 5 });
      const ops = userConversations(run.h.svc.store, alice.user.id);
      const c = await ops.create({ title: 'Harbour tides', modelId: 'scripted-model' });
      chatId = c.id;
      const q = await ops.addMessage(c.id, { parentId: null, role: 'user', content: 'When is high tide in the harbour?' });
      await ops.addMessage(c.id, { parentId: q.id, role: 'assistant', content: 'BRANCH-ONE: at **six** in the morning.', status: 'complete' });
      await ops.addMessage(c.id, { parentId: q.id, role: 'assistant', content: 'BRANCH-TWO: around noon.', status: 'complete' });
      ({ page } = await run.newPage());
      await run.signIn(page, alice.email, `/c/${c.id}`);
    });
    after(async () => {
      await run?.close();
      await mcp?.close();
    });

    test('the owner shares the branch on screen from the chat header', async () => {
      // The chat opens on its newest answer; the owner goes back to the first version, and shares that.
      await waitForText(lastAnswer(page), /BRANCH-TWO/);
      await page.getByTestId('branch-prev').click();
      await waitForText(lastAnswer(page), /BRANCH-ONE/);
      await page.getByTestId('share-button').click();
      await page.getByTestId('share-create').click();
      const url = page.getByTestId('share-dialog').getByTestId('share-url');
      await waitForCount(url, 1);
      link = await url.inputValue();
      assert.match(link, new RegExp(`^${run.h.origin}/s/[A-Za-z0-9_-]{32}$`));
      await screenshot(page, 'share-dialog');
      await page.keyboard.press('Escape');
    });

    test('opened signed out: only that branch, read-only, not indexed, and axe finds nothing serious', async () => {
      const { page: anon } = await run.newPage();
      const res = await anon.goto(link);
      assert.equal(res?.status(), 200);
      assert.equal(res?.headers()['x-robots-tag'], 'noindex, nofollow');
      await anon.getByTestId('shared-chat').waitFor();
      const shown = await textOf(anon.getByTestId('shared-chat'));
      assert.match(shown, /When is high tide in the harbour\?/);
      assert.match(shown, /BRANCH-ONE/);
      assert.doesNotMatch(shown, /BRANCH-TWO/);
      // The answer went through the chat's markdown renderer.
      assert.equal(await anon.locator('[data-testid="shared-message"][data-role="assistant"] [data-streamdown="strong"]').innerText(), 'six');
      assert.equal(await anon.locator('meta[name="robots"]').getAttribute('content'), 'noindex, nofollow');
      // Signed out: no composer, no way to continue but to sign in.
      assert.equal(await anon.getByTestId('composer-input').count(), 0);
      assert.equal(await anon.getByTestId('share-continue').count(), 0);
      await anon.getByTestId('share-signin').waitFor();
      await screenshot(anon, 'share-signed-out');
      assert.deepEqual(await seriousA11yViolations(anon), [], 'axe on the shared chat');
    });

    test('another signed-in user continues it as a new chat of their own', async () => {
      const { page: bobs } = await run.newPage();
      await run.signIn(bobs, bob.email, new URL(link).pathname);
      await bobs.getByTestId('share-continue').click();
      const id = await conversationId(bobs);
      assert.notEqual(id, chatId);
      await waitForText(lastAnswer(bobs), /BRANCH-ONE/);
      assert.equal(await messages(bobs, 'assistant').count(), 1);
      const copy = await userConversations(run.h.svc.store, bob.user.id).get(id);
      assert.deepEqual(
        copy.messages.map((m) => m.content),
        ['When is high tide in the harbour?', 'BRANCH-ONE: at **six** in the morning.'],
      );
      // And bob can go on: the copy is an ordinary chat.
      assert.match(await ask(bobs, 'And tomorrow? [[reply:An hour later.]]'), /An hour later/);
    });

    test('the owner revokes it from the account page: the link is a 404 page', async () => {
      await page.goto('/account');
      const shares = page.getByTestId('account-shares');
      await waitForCount(shares.getByTestId('share-link'), 1);
      await shares.getByTestId('share-revoke').click();
      await waitForCount(shares.getByTestId('share-link'), 0);
      const { page: anon } = await run.newPage();
      const res = await anon.goto(link);
      assert.equal(res?.status(), 404);
      await anon.getByTestId('share-missing').waitFor();
      assert.equal(await anon.getByTestId('shared-chat').count(), 0);
      assert.deepEqual(await seriousA11yViolations(anon), [], 'axe on the revoked link');
    });

    test('a temporary chat is answered, says it is not saved, and is gone after a reload', async () => {
      const before = (await userConversations(run.h.svc.store, alice.user.id).list()).items.length;
      await page.goto('/');
      await page.getByTestId('composer-input').waitFor();
      await page.getByTestId('temporary-toggle').click();
      await waitForText(page.getByTestId('temporary-notice'), /not saved/);
      assert.match(await ask(page, 'Say something fleeting [[reply:Gone with the tide.]]'), /Gone with the tide/);
      // Still on the new-chat page, nothing stored, nothing in the history.
      assert.equal(new URL(page.url()).pathname, '/');
      assert.equal((await userConversations(run.h.svc.store, alice.user.id).list()).items.length, before);
      assert.deepEqual(await userConversations(run.h.svc.store, alice.user.id).search('fleeting'), []);
      assert.equal(
        await page
          .getByTestId('conversation-item')
          .filter({ hasText: /fleeting/i })
          .count(),
        0,
      );
      // A second turn reads the first (the browser sends the branch).
      assert.match(await ask(page, 'Again [[reply:Still temporary.]]'), /Still temporary/);
      await waitForCount(messages(page, 'assistant'), 2);
      await screenshot(page, 'temporary-chat');
      assert.deepEqual(await seriousA11yViolations(page), [], 'axe on a temporary chat');

      await page.reload();
      await page.getByTestId('composer-input').waitFor();
      await until(async () => (await page.getByTestId('temporary-toggle').getAttribute('aria-pressed')) === 'false', 'the switch to be off');
      assert.equal(await page.getByTestId('temporary-notice').count(), 0);
      assert.equal(await messages(page, 'assistant').count(), 0);
      assert.equal(
        await page
          .getByTestId('conversation-item')
          .filter({ hasText: /fleeting/i })
          .count(),
        0,
      );
    });

    test('a temporary chat reads an attached document and calls a switched-on tool; nothing is stored', async () => {
      const tables = ['conversations', 'messages', 'memories', 'shares'];
      const rows = async () =>
        Promise.all(tables.map(async (t) => Number((await run.h.svc.store.get<{ n: number | string }>(`SELECT COUNT(*) AS n FROM ${t}`))?.n ?? 0)));
      const before = await rows();
      const requests = run.h.engine.requests.length;
      await page.goto('/');
      await page.getByTestId('composer-input').waitFor();
      // A new stored chat offers memory and the knowledge base; a temporary one says in one line why it does not.
      await page.getByTestId('chat-settings').click();
      await page.getByTestId('memory-setting').waitFor();
      await page.getByTestId('knowledge-picker').waitFor();
      assert.equal(await page.getByTestId('temporary-settings-note').count(), 0);
      await page.getByRole('button', { name: 'Cancel' }).click();
      await page.getByTestId('temporary-toggle').click();
      await waitForText(page.getByTestId('temporary-notice'), /not saved/);
      await page.getByTestId('chat-settings').click();
      await waitForText(page.getByTestId('temporary-settings-note'), 'Temporary chats don’t use memory or your knowledge base.');
      assert.equal(await page.getByTestId('memory-setting').count(), 0);
      assert.equal(await page.getByTestId('knowledge-picker').count(), 0);
      await page.locator('[data-testid="tool-toggle"][data-name="calc"]').check();
      await page.getByRole('button', { name: 'Save' }).click();
      const pdf = (await documents())[0];
      await page.locator('input[type="file"]').setInputFiles({ name: pdf.name, mimeType: pdf.mimeType, buffer: pdf.buffer });
      await waitForCount(page.locator('form[aria-label="Send a message"] [data-testid="attachment-chip"]'), 1);

      assert.equal(await ask(page, 'Add the pages [[tool:calc__add:{"a":2,"b":3}]] [[reply:The sum is 5.]]'), 'The sum is 5.');
      await waitForText(lastQuestion(page).getByTestId('attachment-chip'), pdf.name);
      const step = lastAnswer(page).getByTestId('tool-step');
      await waitForAttribute(step, 'data-status', 'done');
      assert.equal(await step.getAttribute('data-tool'), 'calc__add');
      await step.locator('summary').click();
      assert.equal(await textOf(step.getByTestId('tool-result')), '2 + 3 = 5');
      // Every request of the turn (the tool's round too) carried the document's text, and offered the tool.
      const turn = run.h.engine.requests.slice(requests).filter((r) => JSON.stringify(r.body.messages).includes('Add the pages'));
      assert.ok(turn.length >= 2, `${turn.length} engine requests`);
      for (const r of turn) {
        assert.match(JSON.stringify(r.body.messages), new RegExp(pdf.marker ?? '-'));
        assert.ok(JSON.stringify(r.body.tools ?? []).includes('calc__add'), 'the tool is offered');
      }
      // The next turn: the page sends the file again (the server kept nothing of it).
      const second = run.h.engine.requests.length;
      assert.match(await ask(page, 'And again [[reply:Still here.]]'), /Still here/);
      const again = run.h.engine.requests.slice(second).find((r) => JSON.stringify(r.body.messages).includes('And again'));
      assert.match(JSON.stringify(again?.body.messages), new RegExp(pdf.marker ?? '-'));

      assert.deepEqual(await rows(), before, `no row in ${tables.join(', ')}`);
      assert.deepEqual(await userConversations(run.h.svc.store, alice.user.id).search(pdf.marker ?? '-'), []);
      await page.reload();
      await page.getByTestId('composer-input').waitFor();
      await until(async () => (await page.getByTestId('temporary-toggle').getAttribute('aria-pressed')) === 'false', 'the switch to be off');
      assert.equal(await messages(page, 'user').count(), 0);
      assert.equal(await page.getByTestId('attachment-chip').count(), 0);
      assert.deepEqual(await rows(), before);
    });

    test('no key material reached the browser; no CSP violation', async () => {
      assertNoCspViolations(run);
      const scanned = await assertNoKeyMaterial(run, [alice.apiKey, bob.apiKey]);
      assert.ok(scanned.responses > 10, `scanned ${scanned.responses} responses`);
    });
  });
