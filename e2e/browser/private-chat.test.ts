// Private chats in Chromium, end to end: a user sets a passphrase, the page attests the E2EE worker and says plainly
// what that proves (no hardware attestation here), seals a question, and shows the answer it opened itself. The
// plaintext canary reached the model's engine (the worker opened it) and appears in no row of the database and no
// log line, the server's or its worker's. After a reload the chats are locked: a wrong passphrase is refused, the
// right one opens the title and the messages, and search runs in the page over the opened text.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { screenshot } from '../support/browser.ts';
import { scriptedModel } from '../support/harness.ts';
import { type AppRun, browserSkip, startApp, type TestUser } from './support/app.ts';
import { until, waitForText } from './support/wait.ts';

const skip = browserSkip();
const CANARY = 'narwhal-canary-41c9';
const PASSPHRASE = 'correct horse battery staple';

if (skip) test('browser: private chats', { skip }, () => {});
else
  describe('browser: private chats', () => {
    let run: AppRun;
    let page: Page;
    let user: TestUser;
    const logged: string[] = [];
    const write = process.stdout.write.bind(process.stdout);

    before(async () => {
      // Every log line the server and its worker write, at debug level, is kept to be searched for the canary.
      process.stdout.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
        logged.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString());
        return write(chunk, ...(rest as []));
      }) as typeof process.stdout.write;
      run = await startApp({
        env: { LAGOON_LOG_LEVEL: 'debug' },
        models: (url) => [scriptedModel('e2ee-model', url, { capabilities: { e2ee: true }, traits: [] })],
      });
      user = await run.newUser({ usd: 5 });
      ({ page } = await run.newPage());
      await run.signIn(page, user.email, '/');
      await page.getByTestId('composer-input').waitFor();
    });
    after(async () => {
      process.stdout.write = write;
      await run?.close();
    });

    test('set a passphrase, send a private message: the answer is opened in the page; the attestation is stated plainly', async () => {
      await page.getByTestId('private-link').click();
      await until(() => new URL(page.url()).pathname === '/private', 'the private chats page');
      await page.getByTestId('private-passphrase').fill(PASSPHRASE);
      await page.getByTestId('private-passphrase-confirm').fill(PASSPHRASE);
      await page.getByTestId('private-vault-create').click();
      await page.locator('[data-testid="private-page"][data-state="unlocked"]').waitFor();
      const note = page.getByTestId('private-attestation');
      await waitForText(note, /No hardware attestation/);
      assert.equal(await note.getAttribute('data-verified'), 'false');

      await page.getByTestId('private-input').fill(`[[echo]] the ${CANARY} swims`);
      await page.getByTestId('private-send').click();
      const answer = page.locator('[data-testid="private-message"][data-role="assistant"]:not([data-live])');
      await answer.waitFor();
      await waitForText(answer, new RegExp(`the ${CANARY} swims`));
      await page.locator('[data-testid="private-chat-item"]').first().waitFor();
      await screenshot(page, 'private-chat');
      // The worker opened it for the model…
      assert.ok(JSON.stringify(run.h.engine.requests.at(-1)).includes(CANARY), 'the engine got the plain text');
    });

    test('the canary is in no database row and no log line; the turn was billed', async () => {
      await run.h.svc.ledger.drain();
      const tables = await run.h.svc.store.all<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'");
      for (const { name } of tables) {
        const rows = await run.h.svc.store.all(`SELECT * FROM ${name}`);
        assert.ok(!JSON.stringify(rows).includes(CANARY), `no row of ${name} holds the canary`);
      }
      const stored = await run.h.svc.store.all<{ content: string }>('SELECT content FROM private_messages');
      assert.equal(stored.length, 2);
      for (const m of stored) assert.match(m.content, /^v1\./);
      assert.ok(logged.length > 0, 'the debug log was captured');
      assert.ok(!logged.some((l) => l.includes(CANARY)), 'no log line holds the canary');
      const usage = await run.h.svc.store.all<{ usd: string }>("SELECT usd FROM usage WHERE model_id = 'e2ee-model'");
      assert.equal(usage.length, 1);
      assert.ok(Number(usage[0].usd) > 0);
    });

    test('after a reload the chats are locked: a wrong passphrase is refused; the right one opens them; search runs in the page', async () => {
      await page.reload();
      await page.locator('[data-testid="private-page"][data-state="locked"]').waitFor();
      await page.getByTestId('private-unlock-passphrase').fill('not the passphrase');
      await page.getByTestId('private-unlock').click();
      await waitForText(page.getByTestId('private-vault-error'), /does not open/);
      await page.getByTestId('private-unlock-passphrase').fill(PASSPHRASE);
      await page.getByTestId('private-unlock').click();
      const item = page.locator('[data-testid="private-chat-item"]').first();
      await waitForText(item, new RegExp(CANARY));
      await item.click();
      await waitForText(page.locator('[data-testid="private-message"][data-role="assistant"]'), new RegExp(`the ${CANARY} swims`));
      await page.getByTestId('private-search').fill('swims');
      await page.locator('[data-testid="private-chat-item"]').first().waitFor();
      await page.getByTestId('private-search').fill('no such words anywhere');
      await until(async () => (await page.locator('[data-testid="private-chat-item"]').count()) === 0, 'no chat matches');
    });
  });
