// Characters people make, in Chromium: Ada creates one with an avatar (resized by the server), previews it in the
// editor's live chat and publishes it; Bob finds it by search, starts a chat that opens with its first message, and
// reviews it (then edits the review). Ada imports a PNG card built here (and is told plainly why a broken card is
// refused). A character whose every field is an XSS payload stays inert on every page that shows it. The operator
// removes a review and unpublishes the character. Then axe and a 375 px phone, and the key-material scan.
import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import sharp from 'sharp';
import { screenshot, seriousA11yViolations } from '../support/browser.ts';
import { type AppRun, browserSkip, startApp, type TestUser } from './support/app.ts';
import { answerBody, conversationId, messages } from './support/chat.ts';
import { assertNoKeyMaterial } from './support/key-scan.ts';
import { textOf, until, waitForAttribute, waitForText } from './support/wait.ts';

const skip = browserSkip();

/** A PNG with `text` chunks added before IEND (how Character Card V2/V3 files carry their card). */
async function pngWithText(chunks: Record<string, string>, color: string): Promise<Buffer> {
  const png = await sharp({ create: { width: 64, height: 48, channels: 3, background: color } })
    .png()
    .toBuffer();
  const iend = png.length - 12;
  const extra = Object.entries(chunks).map(([keyword, text]) => {
    const type = Buffer.from('tEXt', 'latin1');
    const data = Buffer.concat([Buffer.from(keyword, 'latin1'), Buffer.from([0]), Buffer.from(text, 'latin1')]);
    const head = Buffer.alloc(4);
    head.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(zlib.crc32(Buffer.concat([type, data])));
    return Buffer.concat([head, type, data, crc]);
  });
  return Buffer.concat([png.subarray(0, iend), ...extra, png.subarray(iend)]);
}

// Each payload tries a different way in: an element with a handler, a script, a javascript: link in HTML and in markdown.
const XSS =
  '<img src=x onerror="window.__xss=1;alert(1)"><script>window.__xss=2</script><a href="javascript:window.__xss=3">a</a> [m](javascript:window.__xss=4)';
const XSS_NAME = '<img src=x onerror=alert(1)>Mallory';
const XSS_TAG = '<img src=x onerror=alert(1)>';

/** Fails if anything a payload tried ran or reached the DOM as markup. */
async function assertInert(page: Page, dialogs: string[], where: string): Promise<void> {
  const seen = await page.evaluate(() => ({
    flag: (window as unknown as { __xss?: number }).__xss ?? null,
    imgs: document.querySelectorAll('img[src="x"]').length,
    scripts: [...document.scripts].filter((s) => s.textContent?.includes('__xss')).length,
    jsLinks: [...document.querySelectorAll('a[href]')].filter((a) => /^\s*javascript:/i.test(a.getAttribute('href') ?? '')).length,
  }));
  assert.deepEqual(seen, { flag: null, imgs: 0, scripts: 0, jsLinks: 0 }, `payload markup on ${where}`);
  assert.deepEqual(dialogs, [], `a dialog opened on ${where}`);
}

/** Picks n stars as a pointer user does: a click on the star (the radio inside it is visually hidden). */
async function rate(form: Locator, n: number): Promise<void> {
  const radio = form.getByRole('radio', { name: new RegExp(`^${n} stars?$`) });
  await form.locator(`label:has([data-testid="review-star-${n}"])`).click();
  await until(() => radio.isChecked(), `${n} stars checked`);
}

if (skip) test('browser: characters', { skip }, () => {});
else
  describe('browser: characters', () => {
    let run: AppRun;
    let op: TestUser;
    let ada: TestUser;
    let bob: TestUser;
    let opPage: Page;
    let adaPage: Page;
    let bobPage: Page;
    let slug = '';
    const dialogs: string[] = [];

    before(async () => {
      run = await startApp();
      op = await run.newUser({ usd: 1, displayName: 'Olga' }); // the first user: the operator
      ada = await run.newUser({ usd: 5, displayName: 'Ada' });
      bob = await run.newUser({ usd: 5, displayName: 'Bob' });
      ({ page: opPage } = await run.newPage());
      ({ page: adaPage } = await run.newPage());
      ({ page: bobPage } = await run.newPage());
      for (const p of [opPage, adaPage, bobPage])
        p.on('dialog', (d) => {
          dialogs.push(d.message());
          void d.dismiss();
        });
      await run.signIn(opPage, op.email, '/characters');
      await run.signIn(adaPage, ada.email, '/characters');
      await run.signIn(bobPage, bob.email, '/characters');
    });
    after(() => run?.close());

    test('Ada creates a character with an avatar, previews it with her unsaved draft and publishes it', async () => {
      const page = adaPage;
      await page.getByTestId('new-character').click();
      await page.getByTestId('character-editor').waitFor();
      const avatar = await sharp({ create: { width: 900, height: 600, channels: 3, background: '#0a7d8c' } })
        .png()
        .toBuffer();
      await page.getByTestId('avatar-input').setInputFiles({ name: 'reef.png', mimeType: 'image/png', buffer: avatar });
      await waitForAttribute(page.getByTestId('avatar-preview'), 'data-local', 'true');
      await page.getByLabel('Name').fill('Captain Coral');
      await page.getByLabel('Description').fill('A retired reef captain who knows every current.');
      await page.getByLabel('Tags').fill('Pirate, sea, pirate');
      await page.getByLabel('Instructions').fill('You are Captain Coral. Speak like an old sailor.');
      await page.getByLabel('First message').fill('Ahoy, traveller! Sit by the helm.');
      await page.getByLabel('Example dialogue').fill('{{user}}: Hi\n{{char}}: Ahoy!');
      await page.getByTestId('character-model').selectOption('scripted-model');
      await page.getByLabel('Temperature').fill('0.6');

      const preview = page.getByTestId('preview-chat');
      await waitForText(preview.locator('[data-testid="preview-message"][data-role="assistant"]').first(), 'Ahoy, traveller!');
      const before = run.h.engine.requests.length;
      await page.getByTestId('preview-input').fill('Where are we? [[reply:Over the coral garden, matey.]]');
      await page.getByTestId('preview-send').click();
      await waitForText(preview.locator('[data-testid="preview-message"][data-role="assistant"]').last(), 'Over the coral garden, matey.');
      await until(() => run.h.engine.requests.length > before, 'the preview to reach the engine');
      const sent = run.h.engine.requests.at(-1)?.body;
      assert.match(sent.messages[0].content, /Captain Coral/, 'the unsaved instructions reach the model');
      assert.equal(sent.temperature, 0.6);
      await screenshot(page, 'character-editor');

      await page.getByTestId('character-publish').check();
      await page.getByTestId('character-save').click();
      await until(() => /^\/characters\/[^/]+$/.test(new URL(page.url()).pathname) && !page.url().endsWith('/new'), 'the new character’s page');
      slug = decodeURIComponent(new URL(page.url()).pathname.split('/')[2]);
      await waitForText(page.getByTestId('character-name'), 'Captain Coral');
      await waitForText(page.getByTestId('character-visibility'), 'Published');
      assert.deepEqual(await page.getByTestId('character-tag').allInnerTexts(), ['pirate', 'sea']);
      const img = page.getByTestId('character-page').getByRole('img', { name: 'Captain Coral' }).first();
      await until(() => img.evaluate((el) => el instanceof HTMLImageElement && el.complete && el.naturalWidth > 0), 'the avatar to load');
      const size = await img.evaluate((el) => [(el as HTMLImageElement).naturalWidth, (el as HTMLImageElement).naturalHeight]);
      assert.deepEqual(size, [512, 512], 'the server resized the avatar to a 512 px square');
      await screenshot(page, 'character-page');
    });

    test('Bob finds it, starts a chat that opens with its first message, and reviews it', async () => {
      const page = bobPage;
      await page.reload();
      await page.getByTestId('characters-search').fill('coral');
      const card = page.locator(`[data-testid="character-card"][data-slug="${slug}"]`);
      await card.waitFor();
      assert.match(await textOf(card), /by Ada/);
      await screenshot(page, 'characters-browse');
      // The card's "Start chat" starts it as the character's page does: a conversation that opens with the first message.
      await card.getByTestId('start-character-chat').click();
      await conversationId(page);
      await waitForText(answerBody(messages(page, 'assistant').first()), 'Ahoy, traveller! Sit by the helm.');
      assert.equal(await messages(page, 'user').count(), 0, 'the character speaks first');
      await page.goBack();
      await page.getByTestId('characters-search').fill('coral');
      await card.waitFor();
      await card.getByTestId('character-link').click();
      await waitForText(page.getByTestId('character-name'), 'Captain Coral');
      assert.equal(await page.getByTestId('owner-actions').count(), 0, 'no owner actions for Bob');

      await page.getByTestId('start-chat').click();
      await conversationId(page);
      const opening = messages(page, 'assistant').first();
      await waitForText(answerBody(opening), 'Ahoy, traveller! Sit by the helm.');
      assert.equal(await messages(page, 'user').count(), 0, 'the character speaks first');

      await page.goBack();
      const mine = page.getByTestId('my-review');
      await rate(mine, 4);
      await mine.getByTestId('review-text').fill('Salty and kind.');
      await mine.getByTestId('review-submit').click();
      await waitForText(mine.getByTestId('review'), 'Salty and kind.');
      await waitForText(page.getByTestId('rating-summary'), /4\.0 from 1 review/);
      await mine.getByTestId('edit-review').click();
      await rate(mine, 5);
      await mine.getByTestId('review-text').fill('Salty, kind and wise.');
      await mine.getByTestId('review-submit').click();
      await waitForText(mine.getByTestId('review'), 'Salty, kind and wise.');
      await waitForText(page.getByTestId('rating-summary'), /5\.0 from 1 review/);

      await adaPage.reload();
      const theirs = adaPage.getByTestId('reviews').locator('[data-testid="review"][data-mine="false"]');
      await waitForText(theirs, /Bob[\s\S]*Salty, kind and wise\./);
      assert.equal(await adaPage.getByTestId('my-review').count(), 0, 'the owner does not review her own character');
    });

    test('Ada imports a PNG card; a malformed card is refused with the server’s reason', async () => {
      const page = adaPage;
      await page.goto('/characters');
      const card = {
        spec: 'chara_card_v2',
        spec_version: '2.0',
        data: {
          name: 'Nerissa',
          description: 'A mermaid who trades in riddles.',
          first_mes: 'A riddle for a riddle?',
          tags: ['Mermaid'],
          creator_notes: 'From the deep.',
        },
      };
      const png = await pngWithText({ chara: Buffer.from(JSON.stringify(card)).toString('base64') }, '#3355aa');
      await page.getByTestId('import-card-input').setInputFiles({ name: 'nerissa.png', mimeType: 'image/png', buffer: png });
      await waitForText(page.getByTestId('character-name'), 'Nerissa');
      await waitForText(page.getByTestId('character-visibility'), /Private/);
      await waitForText(page.getByTestId('character-first-message'), 'A riddle for a riddle?');
      assert.deepEqual(await page.getByTestId('character-tag').allInnerTexts(), ['mermaid']);

      await page.goto('/characters');
      await page
        .getByTestId('import-card-input')
        .setInputFiles({ name: 'broken.json', mimeType: 'application/json', buffer: Buffer.from('{"spec":"chara_card_v9","data":{}}') });
      await waitForText(page.getByTestId('import-error'), /Invalid character card: spec must be/);
      await page.getByTestId('characters-scope-mine').click();
      await until(async () => (await page.getByTestId('character-card').count()) === 2, 'Ada’s two characters under Mine');
    });

    test('a character whose every field is an XSS payload stays inert everywhere it is shown', async () => {
      const page = adaPage;
      await page.goto('/characters/new');
      await page.getByLabel('Name').fill(XSS_NAME);
      await page.getByLabel('Description').fill(XSS);
      await page.getByLabel('Tags').fill(XSS_TAG);
      await page.getByLabel('Instructions').fill(XSS);
      await page.getByLabel('First message').fill(XSS);
      await page.getByLabel('Example dialogue').fill(XSS);
      await assertInert(page, dialogs, 'the editor’s preview');
      await page.getByTestId('character-publish').check();
      await page.getByTestId('character-save').click();
      await page.getByTestId('character-description').waitFor();
      const evil = decodeURIComponent(new URL(page.url()).pathname.split('/')[2]);
      await waitForText(page.getByTestId('character-name'), XSS_NAME);
      await waitForText(page.getByTestId('character-description'), '<script>window.__xss=2</script>');
      await page.getByText('Instructions', { exact: true }).click();
      await page.getByText('Example dialogue', { exact: true }).click();
      await waitForText(page.getByTestId('character-example'), 'javascript:window.__xss=4');
      await assertInert(page, dialogs, 'the character page');

      await page.goto(`/characters/${encodeURIComponent(evil)}/edit`);
      await page.getByTestId('preview-input').fill('hi [[reply:<img src=x onerror=alert(1)> [m](javascript:alert(1))]]');
      await page.getByTestId('preview-send').click();
      await waitForText(page.locator('[data-testid="preview-message"][data-role="assistant"]').last(), '<img src=x onerror=alert(1)>');
      await assertInert(page, dialogs, 'the editor with a reply');

      await bobPage.goto(`/characters?tag=${encodeURIComponent(XSS_TAG)}`);
      await bobPage.locator(`[data-testid="character-card"][data-slug="${evil}"]`).waitFor();
      await assertInert(bobPage, dialogs, 'the browse page');
      await bobPage.goto(`/characters/${encodeURIComponent(evil)}`);
      const mine = bobPage.getByTestId('my-review');
      await rate(mine, 1);
      await mine.getByTestId('review-text').fill(XSS);
      await mine.getByTestId('review-submit').click();
      await waitForText(mine.getByTestId('review'), '<script>window.__xss=2</script>');
      await assertInert(bobPage, dialogs, 'the reviews');
      await bobPage.getByTestId('start-chat').click();
      await conversationId(bobPage);
      // The chat renders the opening as sanitised markdown (raw HTML is dropped or shown as a blocked image), so the
      // check is that it arrived and that nothing in it ran or became markup.
      await waitForText(answerBody(messages(bobPage, 'assistant').first()), /\S/);
      await assertInert(bobPage, dialogs, 'the chat that opens with the payload');
    });

    test('the operator removes a review and unpublishes the character; Bob can no longer find it', async () => {
      const page = opPage;
      await page.goto(`/characters/${encodeURIComponent(slug)}`);
      const review = page.locator('[data-testid="review"]', { hasText: 'Salty, kind and wise.' });
      await review.getByTestId('operator-remove-review').click();
      await page.getByTestId('confirm-dialog').getByTestId('confirm-button').click();
      await until(async () => (await review.count()) === 0, 'the review to be removed');
      await page.getByTestId('operator-unpublish').click();
      await page.getByTestId('confirm-dialog').getByTestId('confirm-button').click();
      await until(() => new URL(page.url()).pathname === '/characters', 'the browse page after unpublishing');

      await bobPage.goto(`/characters/${encodeURIComponent(slug)}`);
      await bobPage.getByTestId('character-missing').waitFor();
      await adaPage.goto(`/characters/${encodeURIComponent(slug)}`);
      await waitForText(adaPage.getByTestId('character-visibility'), /Private/);
      assert.equal(await adaPage.getByTestId('rating-summary').count(), 0, 'no reviews left');
    });

    test('axe finds nothing serious on the browse, character and editor pages, in light and dark; usable at 375 px', async () => {
      for (const colorScheme of ['light', 'dark'] as const) {
        const { page } = await run.newPage({ colorScheme, ...(colorScheme === 'dark' ? { viewport: { width: 375, height: 800 } } : {}) });
        await run.signIn(page, ada.email, '/characters');
        if (colorScheme === 'dark') await page.evaluate(() => localStorage.setItem('lagoon-theme', 'dark'));
        for (const path of ['/characters', `/characters/${encodeURIComponent(slug)}`, '/characters/new']) {
          await page.goto(path);
          await page.locator('[data-testid="character-card"], [data-testid="character-name"], [data-testid="character-editor"]').first().waitFor();
          assert.deepEqual(await seriousA11yViolations(page), [], `axe on ${path} (${colorScheme})`);
          if (colorScheme === 'dark') {
            const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
            assert.ok(overflow <= 0, `${path} fits 375 px (overflows by ${overflow} px)`);
          }
        }
        if (colorScheme === 'dark') await screenshot(page, 'character-editor-phone');
      }
    });

    test('no key material reached the browser', async () => {
      const scanned = await assertNoKeyMaterial(run, [op.apiKey, ada.apiKey, bob.apiKey]);
      assert.ok(scanned.responses > 20, `scanned ${scanned.responses} responses`);
    });
  });
