// The app's pages in Chromium: sign up, sign out and sign in through the forms; the theme (dark class, kept across
// a reload); characters (browse, search, chat with one: the header shows it); the account page; a 375 px phone
// (send works, the drawer opens); axe on every page in both themes; screenshots of the main pages. Ends with the
// key-material scan over everything the browser received.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { screenshot, seriousA11yViolations } from '../support/browser.ts';
import { type AppRun, browserSkip, PASSWORD, startApp } from './support/app.ts';
import { ask, conversationId, lastAnswer, waitForHighlighting } from './support/chat.ts';
import { assertNoKeyMaterial } from './support/key-scan.ts';
import { textOf, until, waitForAttribute, waitForCount, waitForText } from './support/wait.ts';

const skip = browserSkip();
const EMAIL = 'marina@example.test';

const path = (page: Page) => new URL(page.url()).pathname;
const isDark = (page: Page) => page.evaluate(() => document.documentElement.classList.contains('dark'));

if (skip) test('browser: pages', { skip }, () => {});
else
  describe('browser: pages', () => {
    let run: AppRun;
    let page: Page;
    /** A chat with a question and an answer, for the pages that need one. */
    let chatPath = '';

    before(async () => {
      run = await startApp();
      ({ page } = await run.newPage());
    });
    after(() => run?.close());

    async function openUserMenu(): Promise<void> {
      await page.getByTestId('user-menu').click();
      await page.getByRole('menu').waitFor();
    }

    test('sign up (field errors first), sign out, sign in (a wrong password is refused)', async () => {
      await page.goto('/characters');
      await until(() => path(page) === '/sign-in', 'the signed-out visitor to be sent to sign in');
      assert.equal(new URL(page.url()).searchParams.get('next'), '/characters');
      await page.getByTestId('auth-form').waitFor();
      await screenshot(page, 'sign-in');

      await page.getByRole('link', { name: 'Create an account' }).click();
      await until(() => path(page) === '/sign-up', 'the sign-up page');
      await page.getByTestId('auth-submit').click();
      await page.getByTestId('email-error').waitFor();
      await page.getByLabel('Display name (optional)').fill('Marina');
      await page.getByLabel('Email').fill(EMAIL);
      await page.getByLabel('Password', { exact: true }).fill('short');
      await page.getByTestId('auth-submit').click();
      await page.getByTestId('password-error').waitFor();
      await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
      await page.getByTestId('auth-submit').click();
      await until(() => path(page) === '/characters', 'the page asked for before signing up');
      await page.getByTestId('characters-page').waitFor();
      await waitForText(page.getByTestId('user-menu'), 'Marina');

      await openUserMenu();
      await page.getByTestId('sign-out').click();
      await until(() => path(page) === '/sign-in', 'the sign-in page after signing out');
      await page.goto('/account');
      await until(() => path(page) === '/sign-in', 'the account page to need a session again');

      await page.getByLabel('Email').fill(EMAIL);
      await page.getByLabel('Password', { exact: true }).fill('not the password at all');
      await page.getByTestId('auth-submit').click();
      await waitForText(page.getByTestId('auth-error'), /incorrect|invalid|wrong/i);
      await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
      await page.getByTestId('auth-submit').click();
      await until(() => path(page) === '/account', 'the account page after signing in');
      await page.getByTestId('account-page').waitFor();
    });

    test('account page: balances (the new user’s daily DIEM) and how to add credit', async () => {
      await waitForText(page.getByTestId('balance-diem'), /^1$/);
      await waitForText(page.getByTestId('balance-usd'), /^\$0\.00$/);
      assert.ok((await textOf(page.getByTestId('top-up-how-to'))).length > 10);
      await screenshot(page, 'account');
    });

    test('characters: browse, search, start a chat; the chat header shows the character', async () => {
      await page.goto('/characters');
      const cards = page.getByTestId('character-card');
      await until(async () => (await cards.count()) >= 4, 'the seeded characters');
      await screenshot(page, 'characters');
      await page.getByTestId('characters-search').fill('sailor');
      await waitForCount(cards, 1);
      const reef = page.locator('[data-testid="character-card"][data-slug="captain-reef"]');
      // The card starts the chat as the character's page does: the conversation is made at once (opening with the
      // character's first message, when it has one) and the page moves to it.
      await reef.getByTestId('start-character-chat').click();
      const id = await conversationId(page);
      await waitForText(page.getByTestId('chat-character'), 'Captain Reef');

      await ask(page, 'Explain tides [[reply:Ahoy! The moon pulls the sea.]]');
      assert.equal(await conversationId(page), id, 'the first message stays in the conversation the card made');
      await waitForText(page.getByTestId('chat-character'), 'Captain Reef');
      const system = run.h.engine.requests.at(-1)?.body.messages[0];
      assert.equal(system?.role, 'system');
      assert.match(system.content, /Captain Reef/, 'the character’s instructions reach the model');
      await ask(page, 'And in a table? [[markdown]]');
      await page.reload();
      await waitForText(page.getByTestId('chat-character'), 'Captain Reef');
      chatPath = path(page);
    });

    test('theme: dark applies the dark class and survives a reload; light and system go back', async () => {
      await page.goto('/');
      await page.getByTestId('composer-input').waitFor();
      assert.equal(await isDark(page), false);
      await openUserMenu();
      await page.getByTestId('theme-dark').click();
      await until(() => isDark(page), 'the dark class');
      await page.keyboard.press('Escape');
      await page.reload();
      await page.getByTestId('composer-input').waitFor();
      assert.equal(await isDark(page), true, 'still dark after a reload');
      // Dark from the first paint: the inline script set the class before any React code ran.
      const beforeHydration = await page.evaluate(() => localStorage.getItem('lagoon-theme'));
      assert.equal(beforeHydration, 'dark');
      await page.goto(chatPath);
      await waitForAttribute(lastAnswer(page), 'data-status', 'complete');
      await waitForHighlighting(page);
      await screenshot(page, 'chat-dark');

      await openUserMenu();
      await page.getByTestId('theme-light').click();
      await until(async () => !(await isDark(page)), 'the light theme');
      await page.getByTestId('theme-system').click();
      await page.keyboard.press('Escape');
      await page.emulateMedia({ colorScheme: 'dark' });
      await until(() => isDark(page), '"system" following the system’s dark preference');
      await page.emulateMedia({ colorScheme: 'light' });
      await until(async () => !(await isDark(page)), '"system" following the system’s light preference');
    });

    test('axe: no serious or critical violation on any page, light and dark', async () => {
      const { page: out } = await run.newPage();
      const pages: Array<{ name: string; p: Page; url: string; ready: (p: Page) => Promise<unknown> }> = [
        { name: 'sign-in', p: out, url: '/sign-in', ready: (p) => p.getByTestId('auth-form').waitFor() },
        { name: 'sign-up', p: out, url: '/sign-up', ready: (p) => p.getByTestId('auth-form').waitFor() },
        { name: 'chat (empty)', p: page, url: '/', ready: (p) => p.getByText('How can I help?').waitFor() },
        { name: 'chat (with messages)', p: page, url: chatPath, ready: (p) => waitForAttribute(lastAnswer(p), 'data-status', 'complete') },
        { name: 'characters', p: page, url: '/characters', ready: (p) => p.getByTestId('character-card').first().waitFor() },
        { name: 'account', p: page, url: '/account', ready: (p) => p.getByTestId('balance-usd').waitFor() },
        { name: 'memory', p: page, url: '/memory', ready: (p) => p.getByTestId('memory-new-input').waitFor() },
      ];
      const found: string[] = [];
      for (const scheme of ['light', 'dark'] as const) {
        for (const { name, p, url, ready } of pages) {
          await p.emulateMedia({ colorScheme: scheme });
          await p.goto(url);
          await ready(p);
          assert.equal(await isDark(p), scheme === 'dark', `${name} is ${scheme}`);
          for (const v of await seriousA11yViolations(p)) found.push(`${name} (${scheme}): ${v}`);
        }
      }
      assert.deepEqual(found, []);
      await page.emulateMedia({ colorScheme: 'light' });
    });

    test('a 375 px phone: no sideways scrolling, 16 px input, sending works, the drawer opens with the chats', async () => {
      const { page: phone } = await run.newPage({ viewport: { width: 375, height: 740 } });
      await run.signIn(phone, EMAIL);
      const input = phone.getByTestId('composer-input');
      await input.waitFor();
      assert.equal(await input.evaluate((el) => getComputedStyle(el).fontSize), '16px', 'no zoom on focus');
      assert.equal(await phone.getByTestId('sidebar').isVisible(), false, 'the sidebar is off-canvas');
      await ask(phone, 'Hello from a phone [[markdown]]');
      await conversationId(phone);
      const overflow = await phone.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(overflow <= 0, `the page scrolls sideways by ${overflow}px`);
      await waitForHighlighting(phone);
      await screenshot(phone, 'mobile-chat');

      await phone.getByTestId('open-sidebar').click();
      await phone.getByTestId('sidebar').waitFor({ state: 'visible' });
      await until(async () => (await phone.getByTestId('conversation-item').count()) >= 2, 'the chats in the drawer');
      await screenshot(phone, 'mobile-drawer');
      await phone.keyboard.press('Escape');
      await phone.getByTestId('sidebar').waitFor({ state: 'hidden' });
      await phone.context().close();
    });

    test('no key material in any response this file received, nor in the client bundles', async () => {
      const scanned = await assertNoKeyMaterial(run);
      assert.ok(scanned.responses > 50, `scanned ${scanned.responses} responses`);
    });
  });
