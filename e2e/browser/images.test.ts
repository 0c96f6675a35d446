// The image mode in Chromium against the real app and service, on the catalogue's own image models (the demo
// generator, named as a demo; the real lanczos and ESRGAN upscalers): generate two variants into a chat and see them,
// upscale one, download one, find them in the gallery; a second user reaches none of it (file, metadata, gallery,
// chat: 404). Ends with the key-material scan over everything the browser received.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import sharp from 'sharp';
import { DEFAULT_CATALOGUE } from '../../lib/models/catalogue.ts';
import { screenshot, seriousA11yViolations } from '../support/browser.ts';
import { type AppRun, browserSkip, startApp, type TestUser } from './support/app.ts';
import { conversationId, send } from './support/chat.ts';
import { assertNoKeyMaterial } from './support/key-scan.ts';
import { until, waitForAttribute, waitForCount, waitForText } from './support/wait.ts';

const skip = browserSkip();
const PROMPT = 'a red sunset over the sea';
const catalogue = JSON.parse(fs.readFileSync(DEFAULT_CATALOGUE, 'utf8')).models as { id: string }[];
const imageModels = ['lagoon-demo-image', 'esrgan-slim', 'lanczos-upscale', 'lagoon-demo-background-remove'].map((id) => catalogue.find((m) => m.id === id)!);

/** The image's decoded width once the browser has loaded it (0 while loading or broken). */
const loadedWidth = (card: Locator) => card.locator('img').evaluate((img: HTMLImageElement) => (img.complete ? img.naturalWidth : 0));

if (skip) test('browser: images', { skip }, () => {});
else
  describe('browser: images', () => {
    let run: AppRun;
    let alice: TestUser;
    let bob: TestUser;
    let page: Page;
    let chatId: string;
    let firstImage: string;

    before(async () => {
      run = await startApp({ models: imageModels });
      alice = await run.newUser({ usd: 5 });
      bob = await run.newUser({ usd: 5 });
      ({ page } = await run.newPage());
      await run.signIn(page, alice.email);
      await page.getByTestId('composer-input').waitFor();
    });
    after(() => run?.close());

    const imageMessages = () => page.getByTestId('image-message');
    const usage = async () => {
      await run.h.svc.ledger.drain();
      return run.h.svc.store.all<{ endpoint: string; model_id: string }>('SELECT endpoint, model_id FROM usage WHERE account_id = $1 ORDER BY created_at', [
        alice.user.accountId,
      ]);
    };

    test('generate: image mode, the demo named as one; two variants appear in the chat and are billed one image each', async () => {
      await page.getByTestId('image-mode-toggle').click();
      await waitForAttribute(page.getByTestId('image-mode-toggle'), 'aria-pressed', 'true');
      await waitForText(page.getByTestId('image-demo-note'), /is a demo/);
      assert.match((await page.getByTestId('image-model').locator('option:checked').innerText()) ?? '', /Lagoon Demo Image.*demo/);
      await page.getByTestId('image-variants').selectOption('2');
      await page.getByTestId('image-aspect').selectOption('1:1');
      await page.getByTestId('image-style').selectOption('Photographic');
      await page.getByTestId('image-seed').fill('4242');
      await send(page, PROMPT);
      chatId = await conversationId(page);

      const message = imageMessages().first();
      await waitForAttribute(message, 'data-status', 'complete', 30_000);
      const cards = message.getByTestId('image-card');
      await waitForCount(cards, 2);
      for (const card of await cards.all()) await until(async () => (await loadedWidth(card)) === 1024, 'a 1024-pixel image shown');
      assert.match(await message.innerText(), /Generated with Lagoon Demo Image/);
      await waitForCount(message.getByTestId('image-demo'), 2);
      firstImage = (await cards.first().getAttribute('data-image-id')) ?? '';
      assert.match(firstImage, /^[0-9a-f-]{36}$/);
      // The prompt is the user's turn, and the chat is named after it.
      await waitForText(page.locator('[data-testid="message"][data-role="user"]').last(), PROMPT);
      assert.deepEqual(
        (await usage()).map((u) => [u.endpoint, u.model_id]),
        [
          ['/image/generate', 'lagoon-demo-image'],
          ['/image/generate', 'lagoon-demo-image'],
        ],
      );
    });

    test('upscale: a new turn holds the image at twice the size, made by a real upscaler', async () => {
      await imageMessages().first().getByTestId('image-upscale').first().click();
      await waitForCount(imageMessages(), 2, 60_000);
      const upscaled = imageMessages().last();
      await waitForAttribute(upscaled, 'data-status', 'complete');
      const card = upscaled.getByTestId('image-card');
      await until(async () => (await loadedWidth(card)) === 2048, 'the 2048-pixel upscaled image shown', 60_000);
      await waitForText(upscaled, /Upscaled to 2048×2048 with Lanczos upscale/);
      assert.equal(await upscaled.getByTestId('image-demo').count(), 0, 'a real upscaler is not marked as a demo');
      assert.deepEqual({ ...(await usage()).at(-1) }, { endpoint: '/image/upscale', model_id: 'lanczos-upscale' });
      await screenshot(page, 'images-chat');
      assert.deepEqual(await seriousA11yViolations(page), [], 'the chat in image mode');
    });

    test('download: the browser saves the image under its prompt and seed', async () => {
      const card = imageMessages().first().getByTestId('image-card').first();
      const [download] = await Promise.all([page.waitForEvent('download'), card.getByTestId('image-download').click()]);
      assert.equal(download.suggestedFilename(), `${PROMPT} 4242.webp`);
      const file = await download.path();
      const meta = await sharp(fs.readFileSync(file)).metadata();
      assert.deepEqual([meta.format, meta.width, meta.height], ['webp', 1024, 1024]);
    });

    test('gallery: the three images, newest first, each linked to its chat', async () => {
      await page.getByTestId('images-link').click();
      const items = page.getByTestId('gallery-item');
      await waitForCount(items, 3);
      assert.match((await items.first().innerText()) ?? '', /Lanczos upscale/);
      assert.equal(await items.last().getAttribute('data-image-id'), firstImage, 'the first variant, made first, is last');
      assert.equal(await page.getByTestId('gallery-chat-link').first().getAttribute('href'), `/c/${chatId}`);
      await screenshot(page, 'images-gallery');
      assert.deepEqual(await seriousA11yViolations(page), [], 'the gallery');
    });

    test('a second user reaches none of it: the file, its details, the gallery and the chat are all 404', async () => {
      const { page: other } = await run.newPage();
      await run.signIn(other, bob.email, '/images');
      await other.getByTestId('gallery-empty').waitFor();
      for (const path of [`/api/app/images/${firstImage}/file`, `/api/app/images/${firstImage}/file?download=1`, `/api/app/images/${firstImage}`]) {
        const res = await other.request.get(path);
        assert.equal(res.status(), 404, path);
        assert.doesNotMatch(res.headers()['content-type'] ?? '', /^image\//);
      }
      const { csrfToken } = await (await other.request.get('/api/app/auth/me')).json();
      for (const what of ['upscale', 'vary', 'remove-background']) {
        const res = await other.request.post(`/api/app/images/${firstImage}/${what}`, {
          data: {},
          headers: { origin: run.h.origin, 'x-csrf-token': csrfToken },
        });
        assert.equal(res.status(), 404, what);
      }
      const del = await other.request.delete(`/api/app/images/${firstImage}`, { headers: { origin: run.h.origin, 'x-csrf-token': csrfToken } });
      assert.equal(del.status(), 404);
      const listed = await other.request.get(`/api/app/images?conversationId=${chatId}`);
      assert.deepEqual(await listed.json(), { images: [], nextCursor: null });
      await other.goto(`/c/${chatId}`);
      await other.getByText('This conversation does not exist or was deleted.').waitFor();
      // Alice still sees hers.
      const mine = await page.request.get(`/api/app/images/${firstImage}/file`);
      assert.equal(mine.status(), 200);
      await other.close();
    });

    test('no key material in any response this file received, nor in the client bundles', async () => {
      const scanned = await assertNoKeyMaterial(run);
      assert.ok(scanned.responses > 10, `scanned ${scanned.responses} responses`);
    });
  });
