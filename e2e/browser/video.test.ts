// The video page in Chromium: the sidebar's Video link; the demo model named as a demo; the price of the form's
// shape before anything is sent; a clip queued on an upstream model (the loopback fake of the OpenAI videos API,
// which holds a `[[hold]]` job until the test releases it, so the reload lands mid-job), its progress bar moving,
// the page reloaded while it is made, the job still there and still moving, then done: the <video> reports 5 s and
// plays and seeks, the download is the clip, and the polling stops. A demo clip made start to finish; delete and
// stop (the hold released); a refused clip shows why and costs nothing; axe in both themes; 375 px. Ends with the
// key-material scan.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import { screenshot, seriousA11yViolations } from '../support/browser.ts';
import { catalogueModel } from '../support/harness.ts';
import { type FakeOpenAIVideos, fakeVideoModel, startFakeOpenAIVideos } from '../support/video-upstreams.ts';
import { type AppRun, browserSkip, startApp, type TestUser } from './support/app.ts';
import { assertNoKeyMaterial } from './support/key-scan.ts';
import { textOf, until, waitForAttribute, waitForCount, waitForText } from './support/wait.ts';

const skip = browserSkip();
const DEMO = 'lagoon-demo-video';
const HELD = 'held-video';
const demoModel = catalogueModel(DEMO);

const path = (page: Page) => new URL(page.url()).pathname;
const jobCard = (page: Page, id: string) => page.locator(`[data-testid="video-job"][data-id="${id}"]`);
const progressOf = async (card: Locator) => Number(await card.getByTestId('video-progress').getAttribute('data-progress', { timeout: 2_000 }));

/** The player's duration once its metadata loaded (-1 when the browser could not read the clip). */
const durationOf = (player: Locator) =>
  player.evaluate(
    (v: HTMLVideoElement) =>
      new Promise<number>((resolve) => {
        if (v.readyState >= 1) return resolve(v.duration);
        v.addEventListener('loadedmetadata', () => resolve(v.duration), { once: true });
        v.addEventListener('error', () => resolve(-1), { once: true });
      }),
  );

if (skip) test('browser: video', { skip }, () => {});
else
  describe('browser: video', () => {
    let run: AppRun;
    let page: Page;
    let user: TestUser;
    let upstream: FakeOpenAIVideos;
    const listRequests: number[] = [];

    before(async () => {
      upstream = await startFakeOpenAIVideos();
      run = await startApp({ models: [demoModel, fakeVideoModel(upstream.url, { id: HELD, duration: 5 })] });
      user = await run.newUser({ usd: 5 });
      ({ page } = await run.newPage());
      page.on('request', (r) => {
        if (new URL(r.url()).pathname === '/api/app/video/jobs' && r.method() === 'GET') listRequests.push(Date.now());
      });
      await run.signIn(page, user.email, '/');
      await page.getByTestId('composer-input').waitFor();
    });
    after(async () => {
      await run?.close();
      await upstream?.close();
    });

    const held = async () => (await run.h.svc.ledger.balances(user.user.accountId)).usdHeld;

    test('from the sidebar: the demo model named as one, and the price of the shape before anything is sent', async () => {
      await page.getByTestId('video-link').click();
      await until(() => path(page) === '/video', 'the video page from the sidebar');
      await page.getByTestId('video-form').waitFor();
      await page.getByTestId('video-jobs-empty').waitFor();
      assert.equal(await page.getByTestId('video-model').inputValue(), DEMO, 'the catalogue’s default video model');
      await waitForText(page.getByTestId('video-demo-note'), /demo/i);
      assert.match(await textOf(page.getByTestId('video-demo-note')), /does not depict the prompt/);
      await waitForAttribute(page.getByTestId('video-quote'), 'data-usd', '0.05');
      assert.match(await textOf(page.getByTestId('video-quote')), /\$0\.05/);
      await page.getByTestId('video-duration').selectOption('10');
      await waitForAttribute(page.getByTestId('video-quote'), 'data-usd', '0.1');
      assert.equal(await page.getByTestId('video-submit').isDisabled(), true, 'no prompt, no submit');
      assert.equal(await held(), 0, 'quoting holds nothing');
      assert.deepEqual(await run.h.svc.jobs.list('video', user.user.accountId), []);
    });

    test('queue a clip, reload while it is made, watch it complete and play: the <video> reports 5 s', async () => {
      await page.getByTestId('video-model').selectOption(HELD);
      await page.getByTestId('video-demo-note').waitFor({ state: 'detached' });
      await waitForAttribute(page.getByTestId('video-quote'), 'data-usd', '0.5');
      const prompt = 'a slow wave over the reef [[hold]]';
      await page.getByTestId('video-prompt').fill(prompt);
      await page.getByTestId('video-submit').click();
      const first = page.getByTestId('video-job').first();
      await waitForAttribute(first, 'data-status', 'running');
      const id = (await first.getAttribute('data-id')) ?? '';
      assert.match(id, /^[0-9a-f-]{36}$/);
      assert.match(await textOf(first), /a slow wave over the reef/);
      assert.match(await textOf(first), /5 s · 16:9 · 360p · silent · Upstream video/);
      await until(async () => (await progressOf(first)) > 0, 'the progress bar to move');
      assert.equal(await held(), 500_000, 'the quote is held while it is made');
      await screenshot(page, 'video-running');

      await page.reload();
      const card = jobCard(page, id);
      await card.waitFor();
      assert.equal(await card.getAttribute('data-status'), 'running', 'still being made after the reload');
      const afterReload = await progressOf(card);
      assert.ok(afterReload > 0, `the bar picks up where the job is, not at zero: ${afterReload}`);
      await until(async () => (await progressOf(card)) > afterReload, 'the bar to keep moving after the reload');
      assert.match(await textOf(card.getByTestId('video-remaining')), /left|longer than usual/);

      const video = [...upstream.videos.values()].find((v) => v.prompt === prompt);
      assert.ok(video, 'the upstream has the job');
      upstream.release(video.id);
      await waitForAttribute(card, 'data-status', 'succeeded', 30_000);
      const player = card.getByTestId('video-player');
      const duration = await durationOf(player);
      assert.ok(Math.abs(duration - 5) < 0.1, `the player reports ${duration} s`);
      await player.evaluate((v: HTMLVideoElement) => {
        v.muted = true;
        return v.play();
      });
      await until(() => player.evaluate((v: HTMLVideoElement) => v.currentTime > 0.2), 'the clip to play');
      await player.evaluate((v: HTMLVideoElement) => v.pause());
      // Seeking near the end (the server answers the player's Range requests).
      await player.evaluate(
        (v: HTMLVideoElement) =>
          new Promise<void>((resolve) => {
            v.addEventListener('seeked', () => resolve(), { once: true });
            v.currentTime = 4.5;
          }),
      );
      assert.ok((await player.evaluate((v: HTMLVideoElement) => v.currentTime)) >= 4);
      assert.match(await textOf(card.getByTestId('video-expires')), /^Kept until /);
      await card.scrollIntoViewIfNeeded();
      await screenshot(page, 'video-done');

      const [download] = await Promise.all([page.waitForEvent('download'), card.getByTestId('video-download').click()]);
      assert.match(download.suggestedFilename(), /^a slow wave over the reef.*\.mp4$/);
      const saved = await download.path();
      const [job] = await run.h.svc.jobs.list('video', user.user.accountId);
      assert.equal(fs.statSync(saved).size, job.media_bytes, 'the download is the whole clip');

      await run.h.svc.ledger.drain();
      assert.equal(await held(), 0, 'billed and released once done');
      // Nothing is queued or running now: the page stops polling the list.
      const before = listRequests.length;
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      assert.equal(listRequests.length, before, 'no list requests while no job is under way');
    });

    test('the demo model: a 3 s clip made start to finish plays in the page', async () => {
      await page.getByTestId('video-model').selectOption(DEMO);
      await page.getByTestId('video-duration').selectOption('3');
      await page.getByTestId('video-resolution').selectOption('256p');
      await waitForAttribute(page.getByTestId('video-quote'), 'data-usd', '0.03');
      await page.getByTestId('video-prompt').fill('a lagoon at dawn');
      await page.getByTestId('video-submit').click();
      await waitForCount(page.getByTestId('video-job'), 2);
      const card = page.getByTestId('video-job').first();
      assert.match(await textOf(card), /a lagoon at dawn/);
      await waitForAttribute(card, 'data-status', 'succeeded', 60_000);
      const duration = await durationOf(card.getByTestId('video-player'));
      assert.ok(Math.abs(duration - 3) < 0.1, `the player reports ${duration} s`);
    });

    test('delete a clip after confirming; stop one under way: it goes, and its hold is released', async () => {
      const demoCard = page.locator('[data-testid="video-job"]', { hasText: 'a lagoon at dawn' });
      await demoCard.getByTestId('video-delete').click();
      await page.getByTestId('confirm-dialog').getByTestId('confirm-button').click();
      await demoCard.waitFor({ state: 'detached' });
      await page.reload();
      await waitForCount(page.getByTestId('video-job'), 1);

      await page.getByTestId('video-model').selectOption(HELD);
      await page.getByTestId('video-prompt').fill('never finished [[hold]]');
      await page.getByTestId('video-submit').click();
      const card = page.locator('[data-testid="video-job"]', { hasText: 'never finished' });
      await waitForAttribute(card, 'data-status', 'running');
      await until(async () => (await held()) === 500_000, 'the hold of the running job');
      assert.equal(await textOf(card.getByTestId('video-delete')), 'Stop');
      await card.getByTestId('video-delete').click();
      await page.getByTestId('confirm-dialog').getByTestId('confirm-button').click();
      await card.waitFor({ state: 'detached' });
      await until(async () => (await held()) === 0, 'the hold released');
      await page.reload();
      await waitForCount(page.getByTestId('video-job'), 1);
      // Spent: the 5 s upstream clip and the 3 s demo clip, nothing for the stopped one.
      const b = await run.h.svc.ledger.balances(user.user.accountId);
      assert.equal(b.usd, 5_000_000 - 500_000 - 30_000);
    });

    test('a clip the upstream refuses: the reason is shown, nothing is charged, and it can be deleted', async () => {
      const spent = (await run.h.svc.ledger.balances(user.user.accountId)).usd;
      await page.getByTestId('video-model').selectOption(HELD);
      await page.getByTestId('video-prompt').fill('something refused [[fail]]');
      await page.getByTestId('video-submit').click();
      const card = page.locator('[data-testid="video-job"]', { hasText: 'something refused' });
      await waitForAttribute(card, 'data-status', 'failed', 30_000);
      const failure = await textOf(card.getByTestId('video-failure'));
      assert.match(failure, /moderation/i);
      assert.match(failure, /Nothing was charged/);
      assert.equal(await card.getByTestId('video-player').count(), 0);
      await until(async () => (await held()) === 0, 'the hold released');
      assert.equal((await run.h.svc.ledger.balances(user.user.accountId)).usd, spent);
      await card.getByTestId('video-delete').click();
      await page.getByTestId('confirm-dialog').getByTestId('confirm-button').click();
      await card.waitFor({ state: 'detached' });
    });

    test('axe: no serious or critical violation, light and dark, with a finished clip and the form', async () => {
      const found: string[] = [];
      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        await page.goto('/video');
        await page.getByTestId('video-player').waitFor();
        await page.getByTestId('video-quote').waitFor();
        for (const v of await seriousA11yViolations(page)) found.push(`video (${scheme}): ${v}`);
      }
      await screenshot(page, 'video-dark');
      await page.emulateMedia({ colorScheme: 'light' });
      assert.deepEqual(found, []);
    });

    test('a 375 px phone: the page fits without sideways scrolling', async () => {
      const { page: phone } = await run.newPage({ viewport: { width: 375, height: 740 } });
      await run.signIn(phone, user.email, '/video');
      await phone.getByTestId('video-player').waitFor();
      const overflow = await phone.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      assert.ok(overflow <= 0, `scrolls sideways by ${overflow}px`);
      await screenshot(phone, 'video-phone');
      await phone.context().close();
    });

    test('no key material reached the browser', async () => {
      const scanned = await assertNoKeyMaterial(run);
      assert.ok(scanned.responses > 0);
    });
  });
