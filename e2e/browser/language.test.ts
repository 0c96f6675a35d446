// The app's language in Chromium: a browser that prefers German gets the German app by default (Accept-Language):
// the sidebar, the chat page, the account menu and the account page's tabs; an English browser gets English, switches to Deutsch on
// the account page (the page re-renders in German at once, <html lang> follows), keeps it after a reload and on
// other pages (remembered), and "Automatic" goes back to the browser's English. The 404 page and sign-in follow too.
// A signed-in user who chose German gets every page in German: billing, alerts, knowledge, memory, prompts, characters
// (browse and the editor), private chats and the account's settings, with none of a short list of English words left.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { seriousA11yViolations } from '../support/browser.ts';
import { type AppRun, browserSkip, PASSWORD, startApp, type TestUser } from './support/app.ts';
import { assertNoCspViolations } from './support/key-scan.ts';
import { waitForText } from './support/wait.ts';

const skip = browserSkip();

if (skip) test('browser: language', { skip }, () => {});
else
  describe('browser: language', () => {
    let run: AppRun;
    let user: TestUser;

    before(async () => {
      run = await startApp();
      user = await run.newUser({ usd: 1 });
    });
    after(() => run?.close());

    const lang = (page: Page) => page.evaluate(() => document.documentElement.lang);

    // Words that only an untranslated page would show (each is spelled differently in German).
    const ENGLISH =
      /\b(Loading|Could not|Something went wrong|Save|Delete|Cancel|Add a|Your|No one|Search|Create|Settings|Balances|Spend|Characters|Memory|Knowledge|Alerts|Two-step|Passkeys? for|Private chats|yet)\b/;
    /** The page's text once `ready` shows, with no English word of the list in it. */
    async function german(page: Page, path: string, testId: string, ready: RegExp | string, title?: string) {
      await page.goto(path);
      const text = await waitForText(page.getByTestId(testId), ready);
      assert.doesNotMatch(text, ENGLISH, `${path} has English left: ${text.match(ENGLISH)?.[0]}`);
      if (title) assert.equal(await page.title(), `${title} · Lagoon`);
      return text;
    }

    test('a German browser gets German by default', async () => {
      const context = await run.browser.newContext({ baseURL: run.h.origin, locale: 'de-DE' });
      const page = await context.newPage();
      await page.goto('/sign-in');
      await waitForText(page.getByTestId('auth-form').locator('h1'), 'Bei Lagoon anmelden');
      assert.equal(await lang(page), 'de');
      await page.locator('#email').fill(user.email);
      await page.locator('#password').fill(PASSWORD);
      await page.getByTestId('auth-submit').click();
      await waitForText(page.getByTestId('new-chat'), 'Neuer Chat');
      await waitForText(page.getByTestId('knowledge-link'), 'Wissen');
      // The chat page: its empty state, the composer and its buttons, the model picker; an answer's actions.
      await waitForText(page.getByTestId('chat-view'), /Wie kann ich helfen\?/);
      assert.equal(await page.getByTestId('composer-input').getAttribute('placeholder'), 'Nachricht an Lagoon…');
      assert.equal(await page.getByTestId('send-button').getAttribute('aria-label'), 'Nachricht senden');
      assert.match((await page.getByTestId('model-picker').getAttribute('aria-label')) ?? '', /^Modell: /);
      await page.getByTestId('composer-input').fill('Hallo');
      await page.getByTestId('composer-input').press('Enter');
      await page.getByTestId('regenerate-button').waitFor();
      assert.equal(await page.getByTestId('regenerate-button').getAttribute('aria-label'), 'Neu generieren');
      assert.equal(await page.getByTestId('edit-button').getAttribute('aria-label'), 'Nachricht bearbeiten');
      await waitForText(page.getByTestId('new-chat'), 'Neuer Chat');
      await page.getByTestId('user-menu').click();
      await waitForText(page.getByTestId('account-link'), 'Konto');
      await page.getByTestId('account-link').click();
      await waitForText(page.getByTestId('account-tabs'), /Konto\s*Nutzung\s*Abrechnung\s*API-Schlüssel\s*Ratenlimits/);
      await page.goto('/no-such-page');
      await waitForText(page.getByTestId('not-found-page'), 'Seite nicht gefunden');
      assert.equal(await page.title(), 'Seite nicht gefunden · Lagoon');
      await context.close();
    });

    test('a user who chose German gets the billing, alerts, knowledge, memory, prompts, characters and private pages in German', async () => {
      const { page } = await run.newPage();
      await page.context().addCookies([{ name: 'lagoon-locale', value: 'de', url: run.h.origin }]);
      await run.signIn(page, user.email, '/billing');
      assert.equal(await lang(page), 'de');
      const billing = await german(page, '/billing', 'billing-page', /Guthaben[\s\S]*USD-Guthaben[\s\S]*DIEM heute/, 'Abrechnung');
      assert.match(billing, /Von laufenden Anfragen reserviert/);
      await waitForText(page.getByTestId('projection'), /nimmt also nicht ab|reicht dein USD-Guthaben/);
      await waitForText(page.getByTestId('chart-tokens'), /Tokens pro Tag/);

      // The settings and the delivery log load apart: wait for both (the log's empty state alone came first once).
      await german(
        page,
        '/alerts',
        'alerts-page',
        /Wann benachrichtigen[\s\S]*Wohin senden[\s\S]*Noch keine Benachrichtigungen gesendet\./,
        'Benachrichtigungen',
      );
      assert.equal(await page.getByTestId('alerts-save').innerText(), 'Benachrichtigungen speichern');

      await german(page, '/knowledge', 'knowledge-page', /Noch keine Sammlungen\./, 'Wissen');
      assert.equal(await page.getByTestId('new-collection-name').getAttribute('placeholder'), 'z. B. Produkthandbücher');

      await german(page, '/memory', 'memory-page', /Noch keine Erinnerungen\./, 'Erinnerungen');
      assert.equal(await page.getByTestId('memory-add').innerText(), 'Im Gedächtnis speichern');

      await german(page, '/prompts', 'prompts-page', /Noch keine Prompts\.[\s\S]*Geteilte Prompts/);

      await german(page, '/characters', 'characters-page', /Personas mit eigener Stimme/, 'Charaktere');
      assert.equal(await page.getByTestId('characters-search').getAttribute('placeholder'), 'Nach Name, Beschreibung oder Tag suchen');
      await german(page, '/characters/new', 'character-editor-page', /Anweisungen[\s\S]*Erste Nachricht[\s\S]*Beispieldialog/, 'Neuer Charakter');
      await waitForText(page.getByTestId('preview-chat'), /Chatte mit deinen ungespeicherten Änderungen/);

      await german(page, '/private', 'private-page', /Eine Passphrase für private Chats festlegen/);

      const account = await german(page, '/account', 'account-page', /Einstellungen[\s\S]*Anzeigename[\s\S]*Passwort ändern/, 'Konto');
      assert.match(account, /Zwei-Schritt-Anmeldung/);
      assertNoCspViolations(run);
    });

    test('an English browser switches to Deutsch on the account page, remembered; Automatic goes back', async () => {
      const { page } = await run.newPage();
      await run.signIn(page, user.email, '/account');
      await waitForText(page.getByTestId('account-page').locator('h1'), 'Account');
      assert.equal(await lang(page), 'en');
      await page.getByTestId('language-select').selectOption('de');
      await waitForText(page.getByTestId('account-page').locator('h1'), 'Konto');
      await waitForText(page.getByTestId('language-settings'), /Derzeit auf Deutsch/);
      assert.equal(await lang(page), 'de');
      assert.deepEqual(await seriousA11yViolations(page), []);

      await page.reload();
      await waitForText(page.getByTestId('account-page').locator('h1'), 'Konto');
      assert.equal(await page.getByTestId('language-select').inputValue(), 'de');
      await page.getByTestId('account-tabs').getByTestId('usage-link').click();
      await waitForText(page.getByTestId('usage-page').locator('h1'), 'Nutzung');
      assert.equal(await page.title(), 'Nutzung · Lagoon');

      await page.getByTestId('account-tabs').getByTestId('account-tab-account').click();
      await page.getByTestId('language-select').selectOption('auto');
      await waitForText(page.getByTestId('account-page').locator('h1'), 'Account');
      assert.equal(await lang(page), 'en');
      await page.reload();
      await waitForText(page.getByTestId('new-chat'), 'New chat');
      assertNoCspViolations(run);
    });
  });
