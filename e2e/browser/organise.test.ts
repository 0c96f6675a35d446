// Organising the chat history in Chromium: make a folder, drag a chat onto it (still there after a reload, and out
// of the main list), search within the folder, pin a chat (kept on top after a reload), archive one (gone from the
// lists, found by search, restored from Archived), drag a chat back out, rename the folder, and delete it (its chat
// comes back, not deleted).
// Ends with the key-material scan.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import { userConversations } from '../../lib/conversations/conversations.ts';
import { screenshot } from '../support/browser.ts';
import { type AppRun, browserSkip, startApp, type TestUser } from './support/app.ts';
import { assertNoCspViolations, assertNoKeyMaterial } from './support/key-scan.ts';
import { textOf, until, waitForAttribute, waitForCount } from './support/wait.ts';

const skip = browserSkip();

if (skip) test('browser: organising chats', { skip }, () => {});
else
  describe('browser: organising chats', () => {
    let run: AppRun;
    let user: TestUser;
    let page: Page;
    const ids: Record<string, string> = {};

    before(async () => {
      run = await startApp();
      user = await run.newUser({ usd: 5 });
      const ops = userConversations(run.h.svc.store, user.user.id);
      for (const title of ['Old notes', 'Garden plans', 'Recipes', 'Lisbon plans']) ids[title] = (await ops.create({ title })).id;
      // Tall enough that the whole history fits without scrolling the sidebar during a drag.
      ({ page } = await run.newPage({ viewport: { width: 1280, height: 1100 } }));
      await run.signIn(page, user.email);
      await page.getByTestId('composer-input').waitFor();
    });
    after(() => run?.close());

    const mainList = () => page.getByTestId('conversation-list');
    const item = (scope: Locator | Page, title: string) => scope.locator(`[data-testid="conversation-item"][data-id="${ids[title]}"]`);
    const folder = (name: string) => page.getByTestId('folder').filter({ hasText: name });
    async function menu(scope: Locator | Page, title: string, action: string): Promise<void> {
      await item(scope, title).hover();
      await item(scope, title).getByTestId('conversation-menu').click();
      await page.getByTestId(action).click();
    }
    async function openFolder(name: string): Promise<Locator> {
      const f = folder(name);
      const toggle = f.getByTestId('folder-toggle');
      if ((await toggle.getAttribute('aria-expanded')) !== 'true') await toggle.click();
      return f.getByTestId('folder-chats');
    }

    test('make a folder and drag a chat onto it: it leaves the list, and is still in the folder after a reload', async () => {
      await waitForCount(mainList().getByTestId('conversation-item'), 4);
      await page.getByTestId('new-folder').click();
      const name = page.getByTestId('folder-name-input');
      await name.fill('Trips');
      await name.press('Enter');
      await folder('Trips').waitFor();

      await item(mainList(), 'Lisbon plans').dragTo(folder('Trips').getByTestId('folder-toggle'));
      await waitForCount(item(mainList(), 'Lisbon plans'), 0);
      // The list drops the chat at once; the folder's own list is read from the server, so wait for the move to be
      // saved before opening it (under load the folder could be fetched first).
      const chats = userConversations(run.h.svc.store, user.user.id);
      await until(async () => (await chats.conversation(ids['Lisbon plans']))?.folderId != null, 'the move to be saved');
      await page.reload();
      await folder('Trips').waitFor();
      await item(await openFolder('Trips'), 'Lisbon plans').waitFor();
      await screenshot(page, 'organise-folder');

      await page.reload();
      await waitForCount(mainList().getByTestId('conversation-item'), 3);
      assert.equal(await item(mainList(), 'Lisbon plans').count(), 0);
      await item(await openFolder('Trips'), 'Lisbon plans').waitFor();
      assert.equal(
        (await userConversations(run.h.svc.store, user.user.id).conversation(ids['Lisbon plans'])).folderId,
        await folder('Trips').getAttribute('data-id'),
      );
    });

    test('search within a folder', async () => {
      const search = page.getByTestId('sidebar-search');
      await search.fill('plans');
      await waitForCount(page.getByTestId('search-hit'), 2);
      await page.getByTestId('search-folder').selectOption({ label: 'In Trips' });
      await waitForCount(page.getByTestId('search-hit'), 1);
      assert.match(await textOf(page.getByTestId('search-hit')), /Lisbon plans/);
      await search.fill('');
    });

    test('pin a chat: it moves to Pinned, and stays there after a reload', async () => {
      await menu(mainList(), 'Recipes', 'pin-conversation');
      const pinned = page.getByTestId('pinned-section');
      await item(pinned, 'Recipes').waitFor();
      await waitForCount(item(mainList(), 'Recipes'), 0);
      await page.reload();
      await item(page.getByTestId('pinned-section'), 'Recipes').waitFor();
      await waitForAttribute(item(page.getByTestId('pinned-section'), 'Recipes'), 'data-pinned', 'true');
      assert.equal(await item(mainList(), 'Recipes').count(), 0);
    });

    test('archive a chat: gone from the lists, found by search, restored from Archived', async () => {
      await menu(mainList(), 'Old notes', 'archive-conversation');
      await waitForCount(item(mainList(), 'Old notes'), 0);
      await page.reload();
      await waitForCount(mainList().getByTestId('conversation-item'), 1);
      assert.equal(await item(page, 'Old notes').count(), 0);

      await page.getByTestId('sidebar-search').fill('Old notes');
      const hit = page.getByTestId('search-hit');
      await waitForCount(hit, 1);
      await waitForAttribute(hit, 'data-archived', 'true');
      // Opened from search, the chat says it is archived.
      await hit.click();
      await until(() => new URL(page.url()).pathname === `/c/${ids['Old notes']}`, 'the archived chat open');
      await page.getByTestId('archived-notice').waitFor();
      await page.getByTestId('sidebar-search').fill('');

      await page.getByTestId('archived-toggle').click();
      const archived = page.getByTestId('archived-list');
      await item(archived, 'Old notes').waitFor();
      await screenshot(page, 'organise-archived');
      await menu(archived, 'Old notes', 'restore-conversation');
      await item(mainList(), 'Old notes').waitFor();
      await waitForCount(page.getByTestId('archived-notice'), 0);
      await until(
        async () => (await page.getByTestId('archived-list').count()) === 0 || (await item(page.getByTestId('archived-list'), 'Old notes').count()) === 0,
        'gone from Archived',
      );
    });

    test('a chat dragged from a folder onto the list leaves the folder; a folder renames in place', async () => {
      await item(mainList(), 'Garden plans').dragTo(folder('Trips').getByTestId('folder-toggle'));
      const inside = await openFolder('Trips');
      await item(inside, 'Garden plans').waitFor();
      await waitForCount(item(mainList(), 'Garden plans'), 0);
      await item(inside, 'Garden plans').dragTo(mainList());
      await item(mainList(), 'Garden plans').waitFor();
      await waitForCount(item(folder('Trips'), 'Garden plans'), 0);
      assert.equal((await userConversations(run.h.svc.store, user.user.id).conversation(ids['Garden plans'])).folderId, null);

      await folder('Trips').hover();
      await folder('Trips').getByTestId('folder-menu').click();
      await page.getByTestId('rename-folder').click();
      const name = page.getByTestId('folder-name-input');
      await name.fill('Journeys');
      await name.press('Enter');
      await folder('Journeys').waitFor();
      await page.reload();
      await folder('Journeys').waitFor();
    });

    test('deleting the folder moves its chat back to the list; nothing is deleted', async () => {
      await folder('Journeys').hover();
      await folder('Journeys').getByTestId('folder-menu').click();
      await page.getByTestId('delete-folder').click();
      await page.getByTestId('confirm-button').click();
      await waitForCount(page.getByTestId('folder'), 0);
      await item(mainList(), 'Lisbon plans').waitFor();
      const all = await userConversations(run.h.svc.store, user.user.id).list();
      assert.equal(all.items.length, 4);
      assert.ok(all.items.every((c) => c.folderId === null));
    });

    test('no key material reached the browser; no CSP violation', async () => {
      assertNoCspViolations(run);
      const scanned = await assertNoKeyMaterial(run, [user.apiKey]);
      assert.ok(scanned.responses > 10, `scanned ${scanned.responses} responses`);
    });
  });
