// "Edit this image" in Chromium, on the demo editor (which applies a small vocabulary for real and reads a one-channel
// mask): a gallery image is edited with a mask painted on the canvas, the edited image joins the gallery, changed only
// where painted, billed once as one image; a picture attached to a chat message is edited too (no mask). Then the mask
// lines up with the picture: a rectangle painted on a wide picture shown scaled down, on a screen of pixel ratio 2,
// is where it was painted in the picture's own pixels, in the mask the server received.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import sharp from 'sharp';
import { greyscaleMask } from '../../lib/images/app-edit.ts';
import { DEFAULT_CATALOGUE } from '../../lib/models/catalogue.ts';
import { screenshot, seriousA11yViolations } from '../support/browser.ts';
import { type AppRun, browserSkip, startApp, type TestUser } from './support/app.ts';
import { ask, lastQuestion, pickModel, send } from './support/chat.ts';
import { until, waitForAttribute, waitForCount } from './support/wait.ts';

const skip = browserSkip();
const catalogue = JSON.parse(fs.readFileSync(DEFAULT_CATALOGUE, 'utf8')).models as { id: string }[];
const imageModels = ['lagoon-demo-image', 'lagoon-demo-edit'].map((id) => catalogue.find((m) => m.id === id)!);

interface Img {
  id: string;
  action: string;
  sourceId: string | null;
  model: string;
  costUsd: number;
  costDiem: number;
  width: number;
  height: number;
}

if (skip) test('browser: edit this image', { skip }, () => {});
else
  describe('browser: edit this image', () => {
    let run: AppRun;
    let user: TestUser;
    let page: Page;

    before(async () => {
      run = await startApp({ models: imageModels });
      user = await run.newUser({ usd: 5 });
      ({ page } = await run.newPage());
      await run.signIn(page, user.email);
      await page.getByTestId('composer-input').waitFor();
    });
    after(() => run?.close());

    const gallery = async (): Promise<Img[]> => (await (await page.request.get('/api/app/images')).json()).images;
    const usd = async () => {
      await run.h.svc.ledger.drain();
      return Number((await run.h.svc.store.get<{ usd: number | string }>('SELECT usd FROM accounts WHERE id = $1', [user.user.accountId]))!.usd);
    };
    const editUsage = async () => {
      await run.h.svc.ledger.drain();
      return run.h.svc.store.all<{ endpoint: string; cost_usd: number | string }>(
        "SELECT endpoint, usd AS cost_usd FROM usage WHERE account_id = $1 AND model_id = 'lagoon-demo-edit' ORDER BY created_at",
        [user.user.accountId],
      );
    };
    const pixel = async (bytes: Buffer, x: number, y: number) => {
      const { data, info } = await sharp(bytes).removeAlpha().raw().toBuffer({ resolveWithObject: true });
      const i = (Math.floor(y) * info.width + Math.floor(x)) * 3;
      return [data[i], data[i + 1], data[i + 2]];
    };
    const isGrey = ([r, g, b]: number[]) => Math.abs(r - g) <= 2 && Math.abs(g - b) <= 2;

    test('a gallery image: paint a mask, say what to change; the result joins the gallery, changed where painted, billed once', async () => {
      await page.getByTestId('image-mode-toggle').click();
      await waitForAttribute(page.getByTestId('image-mode-toggle'), 'aria-pressed', 'true');
      await send(page, 'a colourful parrot in a jungle');
      await waitForAttribute(page.getByTestId('image-message').first(), 'data-status', 'complete', 30_000);
      const [original] = await gallery();
      assert.equal(original.action, 'generate');

      await page.goto('/images');
      await waitForCount(page.getByTestId('gallery-item'), 1);
      await page.getByTestId('gallery-item').first().getByTestId('image-edit').click();
      const editor = page.getByTestId('image-editor');
      await editor.waitFor();
      const mask = page.getByTestId('image-editor-mask');
      await until(async () => (await mask.evaluate((c: HTMLCanvasElement) => c.width)) === original.width, 'the mask canvas at the picture size');
      // Dabs across the top-left quarter (each a press: a brush stroke is a row of them).
      const box = (await mask.boundingBox())!;
      for (let f = 0.1; f <= 0.41; f += 0.03) await page.mouse.click(box.x + box.width * f, box.y + box.height * 0.2);
      await page.getByTestId('image-editor-clear').waitFor();
      assert.equal(await page.getByTestId('image-editor-clear').isEnabled(), true, 'the mask is painted');
      await page.getByTestId('image-editor-prompt').fill('make it black and white');
      assert.deepEqual(await seriousA11yViolations(page), []);
      await screenshot(page, 'image-editor');
      const before = await usd();
      await page.getByTestId('image-editor-apply').click();
      await waitForCount(page.getByTestId('gallery-item'), 2, 30_000);
      assert.equal(await editor.isVisible(), false, 'the editor closes');

      const [edited] = await gallery();
      assert.equal(edited.action, 'edit');
      assert.equal(edited.sourceId, original.id);
      assert.equal(edited.model, 'lagoon-demo-edit');
      assert.equal(await page.getByTestId('gallery-item').first().getAttribute('data-image-id'), edited.id, 'the edit is at the top of the gallery');
      const usage = await editUsage();
      assert.equal(usage.length, 1, 'one metered call');
      assert.equal(usage[0].endpoint, '/image/multi-edit', 'the mask went along as the second image');
      assert.equal(before - (await usd()), Number(usage[0].cost_usd), 'charged once, the usage row’s amount');
      assert.ok(Number(usage[0].cost_usd) > 0);
      assert.equal(edited.costUsd, Number(usage[0].cost_usd) / 1e6);

      // Grey where painted, still in colour far from the stroke.
      const bytes = Buffer.from(await (await page.request.get(`/api/app/images/${edited.id}/file`)).body());
      // Somewhere along the painted row the picture turned grey where it had colour.
      const srcBytes = Buffer.from(await (await page.request.get(`/api/app/images/${original.id}/file`)).body());
      let turned = 0;
      for (let y = 0.1; y <= 0.3; y += 0.02)
        for (let x = 0.05; x <= 0.45; x += 0.02) {
          const [a, b] = [await pixel(bytes, edited.width * x, edited.height * y), await pixel(srcBytes, original.width * x, original.height * y)];
          if (isGrey(a) && !isGrey(b)) turned++;
        }
      assert.ok(turned > 0, 'the painted part turned black and white');
      const far = await pixel(bytes, edited.width * 0.8, edited.height * 0.85);
      const src = await pixel(
        Buffer.from(await (await page.request.get(`/api/app/images/${original.id}/file`)).body()),
        original.width * 0.8,
        original.height * 0.85,
      );
      assert.deepEqual(
        far.map((v, i) => Math.abs(v - src[i]) <= 3),
        [true, true, true],
        'the unpainted part is unchanged',
      );
    });

    test('a picture attached to a chat message: "Edit this image" edits the whole picture into the gallery', async () => {
      await page.goto('/');
      await page.getByTestId('composer-input').waitFor();
      // The first test left the image mode on: a picture for a chat model goes in text mode.
      if ((await page.getByTestId('image-mode-toggle').getAttribute('aria-pressed')) === 'true') await page.getByTestId('image-mode-toggle').click();
      await waitForAttribute(page.getByTestId('image-mode-toggle'), 'aria-pressed', 'false');
      await pickModel(page, 'Scripted vision-model');
      const png = await sharp({ create: { width: 320, height: 320, channels: 3, background: { r: 200, g: 40, b: 40 } } })
        .png()
        .toBuffer();
      await page.locator('input[type="file"]').setInputFiles({ name: 'red.png', mimeType: 'image/png', buffer: png });
      await ask(page, 'What colour is this?');
      const before = (await gallery()).length;
      await lastQuestion(page).getByTestId('attachment-edit').click();
      await page.getByTestId('image-editor').waitFor();
      await page.getByTestId('image-editor-prompt').fill('invert it');
      await page.getByTestId('image-editor-apply').click();
      await until(async () => (await gallery()).length === before + 1, 'the edited picture in the gallery');
      const [edited] = await gallery();
      assert.equal(edited.action, 'edit');
      assert.equal(edited.sourceId, null);
      const usage = await editUsage();
      assert.equal(usage.length, 2);
      assert.equal(usage[1].endpoint, '/image/edit', 'no mask: a plain edit');
      const out = await pixel(Buffer.from(await (await page.request.get(`/api/app/images/${edited.id}/file`)).body()), 10, 10);
      assert.deepEqual(
        out.map((v, i) => Math.abs(v - [55, 215, 215][i]) <= 3),
        [true, true, true],
        'inverted red',
      );
    });

    test('the painted mask lines up with the picture: a wide picture shown scaled, at pixel ratio 2', async () => {
      const { page: hidpi } = await run.newPage({ viewport: { width: 900, height: 800 }, deviceScaleFactor: 2 });
      await run.signIn(hidpi, user.email);
      await hidpi.getByTestId('composer-input').waitFor();
      if ((await hidpi.getByTestId('image-mode-toggle').getAttribute('aria-pressed')) === 'true') await hidpi.getByTestId('image-mode-toggle').click();
      await pickModel(hidpi, 'Scripted vision-model');
      const [W, H] = [1200, 500];
      const png = await sharp({ create: { width: W, height: H, channels: 3, background: { r: 30, g: 90, b: 200 } } })
        .png()
        .toBuffer();
      await hidpi.locator('input[type="file"]').setInputFiles({ name: 'wide.png', mimeType: 'image/png', buffer: png });
      await ask(hidpi, 'What is this?');
      await lastQuestion(hidpi).getByTestId('attachment-edit').click();
      const mask = hidpi.getByTestId('image-editor-mask');
      await until(async () => (await mask.evaluate((c: HTMLCanvasElement) => `${c.width}x${c.height}`)) === `${W}x${H}`, 'the mask canvas at the picture size');
      const box = (await mask.boundingBox())!;
      assert.ok(box.width < W / 1.5, `the picture is shown scaled down (${box.width} CSS px for ${W} px)`);
      assert.ok(Math.abs(box.width / box.height - W / H) < 0.02, 'shown at its own aspect ratio');
      const radius = Number(await mask.getAttribute('data-brush-radius'));
      assert.ok(radius > 0);

      // One stroke over the rectangle [left, right] × [top, bottom] (the picture's pixels), row by row, each row
      // closer than the brush is wide: painted is that rectangle grown by the brush's radius.
      const [left, top, right, bottom] = [300, 150, 700, 300];
      const screen = (x: number, y: number): [number, number] => [box.x + (x * box.width) / W, box.y + (y * box.height) / H];
      const rows: number[] = [];
      for (let y = top; y < bottom; y += radius) rows.push(y);
      rows.push(bottom);
      await hidpi.mouse.move(...screen(left, top));
      await hidpi.mouse.down();
      for (const [i, y] of rows.entries()) {
        const [from, to] = i % 2 ? [right, left] : [left, right];
        await hidpi.mouse.move(...screen(from, y), { steps: 2 });
        await hidpi.mouse.move(...screen(to, y), { steps: 4 });
      }
      await hidpi.mouse.up();
      const after = (await mask.boundingBox())!;
      assert.deepEqual([after.x, after.y], [box.x, box.y], 'the picture stayed put under the brush');
      await hidpi.getByTestId('image-editor-prompt').fill('make it black and white');
      const sent = hidpi.waitForRequest((r) => r.url().endsWith('/api/app/images/edit') && r.method() === 'POST');
      await hidpi.getByTestId('image-editor-apply').click();
      const body = (await sent).postDataJSON() as { image: string; mask: string };
      assert.equal(body.image, `data:image/png;base64,${png.toString('base64')}`, 'the picture goes as it is');
      await hidpi.getByTestId('image-editor').waitFor({ state: 'detached' });

      // The painted mask (opaque where painted) and what the engine reads of it (white where painted).
      const painted = await sharp(Buffer.from(body.mask.split(',')[1], 'base64'))
        .ensureAlpha()
        .raw()
        .toBuffer({ resolveWithObject: true });
      assert.deepEqual([painted.info.width, painted.info.height], [W, H], 'the mask has the picture’s size');
      const grey = await sharp(await greyscaleMask(body.mask))
        .extractChannel(0)
        .raw()
        .toBuffer({ resolveWithObject: true });
      assert.deepEqual([grey.info.width, grey.info.height, grey.info.channels], [W, H, 1]);
      const extent = (on: (x: number, y: number) => boolean) => {
        const e = { left: W, top: H, right: -1, bottom: -1 };
        for (let y = 0; y < H; y++)
          for (let x = 0; x < W; x++)
            if (on(x, y)) Object.assign(e, { left: Math.min(e.left, x), top: Math.min(e.top, y), right: Math.max(e.right, x), bottom: Math.max(e.bottom, y) });
        return e;
      };
      const expected = { left: left - radius, top: top - radius, right: right + radius, bottom: bottom + radius };
      for (const [what, got] of [
        ['opaque in the painted mask', extent((x, y) => painted.data[(y * W + x) * 4 + 3] > 127)],
        ['white in the engine’s mask', extent((x, y) => grey.data[y * W + x] > 127)],
      ] as const) {
        for (const k of ['left', 'top', 'right', 'bottom'] as const)
          assert.ok(Math.abs(got[k] - expected[k]) <= 2, `${what}: ${k} at ${got[k]}, painted at ${expected[k].toFixed(1)} (±2 px)`);
      }
      // Inside the rectangle all painted; beyond the brush, nothing.
      const alpha = (x: number, y: number) => painted.data[(y * W + x) * 4 + 3];
      for (const [x, y] of [
        [left, top],
        [right, bottom],
        [(left + right) / 2, (top + bottom) / 2],
      ])
        assert.ok(alpha(Math.round(x), Math.round(y)) > 200, `painted at ${x},${y}`);
      for (const [x, y] of [
        [Math.floor(left - radius - 4), (top + bottom) / 2],
        [Math.ceil(right + radius + 4), (top + bottom) / 2],
        [(left + right) / 2, Math.floor(top - radius - 4)],
        [(left + right) / 2, Math.ceil(bottom + radius + 4)],
      ])
        assert.equal(alpha(Math.round(x), Math.round(y)), 0, `unpainted at ${x},${y}`);
    });
  });
