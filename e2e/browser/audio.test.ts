// Read-aloud and dictation in Chromium, on the local engines (flite speech, pocketsphinx transcription). Chromium's
// fake microphone plays a WAV of a sentence flite said (--use-fake-device-for-media-stream,
// --use-file-for-fake-audio-capture): dictating it puts its words in the message box, to edit and send; a context
// that was not allowed the microphone is told so in words. Pressing read-aloud on an answer plays it (the <audio>
// element's clock advances and it ends), with the voice and speed chosen in the chat settings; each is billed to the
// user's account; no credit and the rate limit are said plainly. Ends with the key-material and CSP checks.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { fliteModel, sphinxModel } from '../support/audio-catalogue.ts';
import { screenshot, seriousA11yViolations } from '../support/browser.ts';
import { ROUND_TRIP_SENTENCES, wordAccuracy } from '../support/word-errors.ts';
import { type AppRun, browserSkip, startApp, type TestUser } from './support/app.ts';
import { ask, lastAnswer } from './support/chat.ts';
import { assertNoKeyMaterial } from './support/key-scan.ts';
import { until, waitForAttribute, waitForText } from './support/wait.ts';

const skip = browserSkip();
const SENTENCE = ROUND_TRIP_SENTENCES[1];
const ANSWER = 'Here is the answer. It has **two** sentences, read aloud as they are made.';
/** What read-aloud says for ANSWER (components/audio/speech-text.ts): the markdown's words. */
const SPOKEN = 'Here is the answer. It has two sentences, read aloud as they are made.';
/** Speech is 1 USD per 1,000 characters in the test catalogue: 1,000 micro-USD a character. */
const PER_CHARACTER = 1_000;
/** Speech requests a minute per key, so the test can reach the limit. */
const SPEECH_RPM = 4;

/** The fake microphone's WAV: the sentence in flite's rms voice at 48 kHz, between short silences; and its length. */
async function microphoneWav(base: string, key: string, dir: string): Promise<{ file: string; seconds: number }> {
  const res = await fetch(`${base}/audio/speech`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ input: SENTENCE, voice: 'rms', response_format: 'wav' }),
  });
  assert.equal(res.status, 200);
  const said = path.join(dir, 'said.wav');
  fs.writeFileSync(said, Buffer.from(await res.arrayBuffer()));
  const file = path.join(dir, 'microphone.wav');
  execFileSync('ffmpeg', ['-nostdin', '-loglevel', 'error', '-y', '-i', said, '-af', 'adelay=400,apad=pad_dur=1', '-ar', '48000', '-c:a', 'pcm_s16le', file]);
  const seconds = Number(execFileSync('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', file]).toString().trim());
  return { file, seconds };
}

/** The shared browser-test world (support/app.ts), with Chromium's fake microphone playing `wav` once. */
async function startAudioApp(dir: string): Promise<{ run: AppRun; micSeconds: number }> {
  let mic = { file: '', seconds: 0 };
  const run = await startApp({ models: [fliteModel(), sphinxModel()], limits: { windowSeconds: 60, audio: { default: { rpm: SPEECH_RPM } } } }, async (h) => {
    mic = await microphoneWav(h.base, (await h.newAccount({ usd: 5 })).key, dir);
    return ['--use-fake-device-for-media-stream', `--use-file-for-fake-audio-capture=${mic.file}%noloop`];
  });
  return { run, micSeconds: mic.seconds };
}

/** Seconds shown by the recording clock ("0:04"), or -1 when it is not shown. */
async function recordedSeconds(page: Page): Promise<number> {
  const text = await page
    .getByTestId('dictate-button')
    .locator('xpath=..')
    .innerText()
    .catch(() => '');
  const m = /(\d+):(\d\d)/.exec(text);
  return m ? Number(m[1]) * 60 + Number(m[2]) : -1;
}

if (skip) test('browser: read-aloud and dictation', { skip }, () => {});
else
  describe('browser: read-aloud and dictation', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lagoon-browser-audio-'));
    let run: AppRun;
    let micSeconds: number;
    let user: TestUser;
    let page: Page;

    before(async () => {
      ({ run, micSeconds } = await startAudioApp(dir));
      user = await run.newUser({ usd: 5 });
      const opened = await run.newPage();
      page = opened.page;
      await opened.rec.context.grantPermissions(['microphone'], { origin: run.h.origin });
      await run.signIn(page, user.email);
      await page.getByTestId('composer-input').waitFor();
    });
    after(async () => {
      await run?.close();
      fs.rmSync(dir, { recursive: true, force: true });
    });

    async function newChat(): Promise<void> {
      await page.getByTestId('new-chat').click();
      await page.getByText('How can I help?').waitFor();
    }

    const usage = async (accountId: string, endpoint: string) => {
      await run.h.svc.ledger.drain();
      return run.h.svc.store.all<any>('SELECT * FROM usage WHERE account_id = $1 AND endpoint = $2 ORDER BY created_at', [accountId, endpoint]);
    };

    test('dictation: the microphone records a sentence, its words land in the box to edit, and the edited text is sent', async () => {
      const mic = page.getByTestId('dictate-button');
      await mic.click();
      await waitForAttribute(mic, 'data-state', 'recording');
      // The fake microphone plays the file once from the start of the capture, then silence.
      await until(async () => (await recordedSeconds(page)) >= Math.ceil(micSeconds) + 1, 'the whole sentence recorded', 30_000);
      await screenshot(page, 'audio-dictating');
      await mic.click();
      await waitForAttribute(mic, 'data-state', 'idle', 60_000);
      const box = page.getByTestId('composer-input');
      const said = await box.inputValue();
      assert.ok(wordAccuracy(SENTENCE, said) >= 0.8, `dictated "${said}" for "${SENTENCE}"`);
      const rows = await usage(user.user.accountId, '/audio/transcriptions');
      assert.equal(rows.length, 1);
      assert.equal(rows[0].unit, 'second');

      // The words are the user's to edit before sending.
      await box.press('End');
      await box.pressSequentially(' Thanks');
      await box.press('Enter');
      await until(() => run.h.engine.requests.length > 0, 'the message reached the model');
      const sent = run.h.engine.requests.at(-1)?.body.messages.at(-1).content;
      assert.equal(sent, `${said} Thanks`);
    });

    test('dictation: a microphone the site may not use is explained, and nothing is recorded or sent', async () => {
      const { page: denied } = await run.newPage();
      await run.signIn(denied, user.email);
      const before = run.h.engine.requests.length;
      await denied.getByTestId('dictate-button').click();
      await waitForText(denied.getByTestId('dictation-error'), /Microphone access was denied\. Allow this site to use the microphone/);
      assert.equal(await denied.getByTestId('dictate-button').getAttribute('data-state'), 'idle');
      assert.equal(await denied.getByTestId('composer-input').inputValue(), '');
      assert.equal(run.h.engine.requests.length, before);
      await denied.close();
    });

    test('an audio file attached to a message is transcribed into the prompt; one over the length limit is refused at once', async () => {
      await newChat();
      const file = (name: string) => path.join(dir, name);
      execFileSync('ffmpeg', ['-nostdin', '-loglevel', 'error', '-y', '-i', file('said.wav'), '-c:a', 'libmp3lame', '-b:a', '48k', file('memo.mp3')]);
      const silence = ['-f', 'lavfi', '-i', 'anullsrc=r=16000:cl=mono', '-t', '360', '-c:a', 'libopus', '-b:a', '6k', file('long.ogg')];
      execFileSync('ffmpeg', ['-nostdin', '-loglevel', 'error', '-y', ...silence]);
      const chips = page.locator('form[aria-label="Send a message"] [data-testid="attachment-chip"]');
      const input = page.locator('input[type="file"]');

      await input.setInputFiles(file('long.ogg'));
      await waitForText(page.locator('form[aria-label="Send a message"] [role="alert"]'), /“long\.ogg” is 6 min long; audio can be at most 5 min\./);
      await until(async () => (await chips.count()) === 0, 'the long recording taken back');

      await input.setInputFiles(file('memo.mp3'));
      await chips.filter({ hasText: 'memo.mp3' }).waitFor();
      const before = run.h.engine.requests.length;
      await ask(page, 'Summarise my voice memo');
      await until(() => run.h.engine.requests.length > before, 'the message reached the model');
      const prompt = run.h.engine.requests.at(-1)?.body.messages.at(-1).content as string;
      const transcript = /\[Audio transcript: memo\.mp3\]\n([^[]*)\n\[End of audio transcript: memo\.mp3\]/.exec(prompt)?.[1] ?? '';
      assert.ok(wordAccuracy(SENTENCE, transcript) >= 0.8, `the model read the memo's words: ${prompt}`);
      assert.match(prompt, /Summarise my voice memo/);
    });

    test('read-aloud: an answer plays as it is made, in the voice and speed picked in the settings, billed per character', async () => {
      await newChat();
      await ask(page, `Answer please [[reply:${ANSWER}]]`);
      const button = lastAnswer(page).getByTestId('read-aloud-button');

      // The voice and speed: picked in the chat settings, kept for the user on this browser.
      await page.getByTestId('chat-settings').click();
      await page.getByTestId('voice-select').selectOption('rms');
      // Two steps of 0.25 up from normal speed, by keyboard, as a user would.
      await page.getByTestId('voice-speed').press('ArrowRight');
      await page.getByTestId('voice-speed').press('ArrowRight');
      await screenshot(page, 'audio-voice-settings');
      assert.deepEqual(await seriousA11yViolations(page), []);
      await page.getByRole('dialog').getByRole('button', { name: 'Save' }).click();
      const prefs = await page.evaluate(() => localStorage.getItem('lagoon.readAloud'));
      assert.deepEqual(JSON.parse(prefs ?? '{}'), { speed: 1.5, voice: 'rms' });

      const bodies: string[] = [];
      page.on('request', (r) => r.url().endsWith('/api/app/audio/speech') && bodies.push(r.postData() ?? ''));
      await page.evaluate(() => {
        const w = window as unknown as Record<string, number>;
        document.addEventListener('click', () => (w.__clickAt = performance.now()), { capture: true, once: true });
        document.addEventListener('playing', () => (w.__playingAt ??= performance.now()), true);
        document.addEventListener('ended', () => (w.__endedAt = performance.now()), true);
      });
      await button.click();
      await waitForAttribute(button, 'data-state', 'playing');
      // It plays: the element's clock moves on, then it reaches the end and the button is ready again.
      const audio = page.locator('audio[data-testid="read-aloud-audio"]');
      await until(() => audio.evaluate((a: HTMLAudioElement) => !a.paused && a.currentTime > 0.5), 'the answer audibly playing');
      await screenshot(page, 'audio-read-aloud');
      await waitForAttribute(button, 'data-state', 'idle', 30_000);
      const t = await page.evaluate(() => {
        const w = window as unknown as Record<string, number>;
        return { start: w.__playingAt - w.__clickAt, length: w.__endedAt - w.__playingAt };
      });
      assert.ok(t.length > 1000, `the whole answer played (${Math.round(t.length)} ms)`);
      console.log(`read-aloud: first audio ${Math.round(t.start)} ms after the click; played ${Math.round(t.length)} ms`);

      assert.deepEqual(
        bodies.map((b) => JSON.parse(b)),
        [{ text: SPOKEN, voice: 'rms', speed: 1.5 }],
      );
      const rows = await usage(user.user.accountId, '/audio/speech');
      assert.deepEqual(
        rows.map((r) => [r.unit, Number(r.quantity), Number(r.usd)]),
        [['character', SPOKEN.length, SPOKEN.length * PER_CHARACTER]],
      );
    });

    test('read-aloud without MediaSource (as on older iPhones): each piece is fetched whole, then played', async () => {
      const { page: plain, rec } = await run.newPage();
      await rec.context.addInitScript(() => {
        delete (window as { MediaSource?: unknown }).MediaSource;
      });
      await run.signIn(plain, user.email, new URL(page.url()).pathname);
      assert.equal(await plain.evaluate(() => typeof MediaSource), 'undefined');
      await plain.evaluate(() => document.addEventListener('ended', () => ((window as unknown as Record<string, boolean>).__ended = true), true));
      const button = lastAnswer(plain).getByTestId('read-aloud-button');
      await button.click();
      await waitForAttribute(button, 'data-state', 'playing');
      await waitForAttribute(button, 'data-state', 'idle', 30_000);
      assert.equal(await plain.evaluate(() => (window as unknown as Record<string, boolean>).__ended), true, 'it played to the end');
      assert.equal(await lastAnswer(plain).getByTestId('read-aloud-error').count(), 0);
      await plain.close();
    });

    test('read-aloud: no credit and the rate limit are said in plain words', async () => {
      const button = lastAnswer(page).getByTestId('read-aloud-button');
      const error = lastAnswer(page).getByTestId('read-aloud-error');
      // Reading aloud (and stopping at once) until the key's speech budget for the minute is spent.
      let refused = false;
      for (let i = 0; i < 2 * SPEECH_RPM + 2 && !refused; i++) {
        await button.click();
        const state = await until(
          async () => ((await error.count()) ? 'refused' : (await button.getAttribute('data-state')) === 'playing' && 'playing'),
          'playing or refused',
        );
        refused = state === 'refused';
        if (refused) break;
        await button.click(); // stop: the request still counted
        await waitForAttribute(button, 'data-state', 'idle');
      }
      assert.ok(refused, 'the rate limit was reached');
      await waitForText(error, /^Too many read-alouds just now\. Try again in \d+ s\./);
      await screenshot(page, 'audio-rate-limited');
      await error.getByRole('button', { name: 'Dismiss' }).click();

      const { page: broke } = await run.newPage();
      const poor = await run.newUser({ usd: 1 });
      await run.signIn(broke, poor.email);
      await ask(broke, `Once more [[reply:${ANSWER}]]`);
      await run.h.svc.ledger.drain();
      await run.h.svc.store.run('UPDATE accounts SET usd = 0 WHERE id = $1', [poor.user.accountId]);
      await lastAnswer(broke).getByTestId('read-aloud-button').click();
      const said = await waitForText(lastAnswer(broke).getByTestId('read-aloud-error'), /out of credit/);
      assert.match(said, /^You're out of credit: add credit to hear answers read aloud\./);
      assert.equal(await lastAnswer(broke).getByRole('link', { name: 'Add credit' }).getAttribute('href'), '/account');
      assert.deepEqual(await usage(poor.user.accountId, '/audio/speech'), []);
      await broke.close();
    });

    test('no key material reached the browser, and no page broke the Content-Security-Policy', async () => {
      await assertNoKeyMaterial(run);
    });
  });
