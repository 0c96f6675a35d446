// Attachments and untrusted text in Chromium: every accepted type reaches the model (an image on a vision model;
// PDF, DOCX, PPTX, XLSX, TXT, MD, CSV as text), oversized and unsupported files are refused with a clear message
// before any upload, and XSS payloads in model output, user text and file names render as inert text. Ends with
// the key-material scan over everything the browser received.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Dialog, Page } from 'playwright-core';
import { type AppRun, browserSkip, startApp, type TestUser } from './support/app.ts';
import { ask, lastAnswer, lastQuestion, pickModel, send } from './support/chat.ts';
import { documents, type TestFile, tinyPng } from './support/documents.ts';
import { assertNoKeyMaterial } from './support/key-scan.ts';
import { textOf, until, waitForAttribute, waitForCount, waitForText } from './support/wait.ts';

const skip = browserSkip();

/** The text of every part of the last user message the engine received. */
function lastUserText(run: AppRun): string {
  const msg = run.h.engine.requests.at(-1)?.body.messages.at(-1);
  if (typeof msg?.content === 'string') return msg.content;
  return (msg?.content ?? []).map((p: { type: string; text?: string }) => (p.type === 'text' ? p.text : '')).join('\n');
}

if (skip) test('browser: attachments and untrusted text', { skip }, () => {});
else
  describe('browser: attachments and untrusted text', () => {
    let run: AppRun;
    let user: TestUser;
    let page: Page;
    const dialogs: string[] = [];

    before(async () => {
      run = await startApp();
      user = await run.newUser({ usd: 5 });
      ({ page } = await run.newPage());
      page.on('dialog', (d: Dialog) => {
        dialogs.push(d.message());
        void d.dismiss();
      });
      await run.signIn(page, user.email);
      await page.getByTestId('composer-input').waitFor();
    });
    after(() => run?.close());

    const fileInput = () => page.locator('input[type="file"]');
    const composerChips = () => page.locator('form[aria-label="Send a message"] [data-testid="attachment-chip"]');
    const composerAlert = () => page.locator('form[aria-label="Send a message"] [role="alert"]');

    async function attach(files: TestFile[]): Promise<void> {
      const before = await composerChips().count();
      await fileInput().setInputFiles(files.map(({ name, mimeType, buffer }) => ({ name, mimeType, buffer })));
      await waitForCount(composerChips(), before + files.length);
    }

    async function newChat(): Promise<void> {
      await page.getByTestId('new-chat').click();
      await page.getByText('How can I help?').waitFor();
    }

    test('an image on a vision model: thumbnail chip, sent inline to the model', async () => {
      // On a model without vision the image is refused before anything is uploaded.
      await fileInput().setInputFiles({ name: 'photo.png', mimeType: 'image/png', buffer: tinyPng() });
      await waitForText(composerAlert(), /photo\.png.*cannot read images/);
      assert.equal(await composerChips().count(), 0);
      await composerAlert().getByRole('button', { name: 'Dismiss' }).click();

      await pickModel(page, 'Scripted vision-model');
      await attach([{ name: 'photo.png', mimeType: 'image/png', buffer: tinyPng() }]);
      assert.match((await composerChips().first().locator('img').getAttribute('src')) ?? '', /^data:image\/png;base64,/);
      await ask(page, 'What is in this picture?');
      await waitForText(lastQuestion(page).getByTestId('attachment-chip'), 'photo.png');
      const parts = run.h.engine.requests.at(-1)?.body.messages.at(-1).content as { type: string; image_url?: { url: string } }[];
      const image = parts.find((p) => p.type === 'image_url');
      assert.equal(image?.image_url?.url, `data:image/png;base64,${tinyPng().toString('base64')}`);
      assert.equal(await composerChips().count(), 0, 'the composer is cleared once sent');
    });

    test('PDF, DOCX, PPTX, XLSX, TXT, MD and CSV: chips, then their text reaches the model', async () => {
      await newChat();
      const docs = await documents();
      for (const batch of [docs.slice(0, 4), docs.slice(4)]) {
        await attach(batch);
        for (const f of batch) await composerChips().filter({ hasText: f.name }).waitFor();
        await ask(page, `Summarise ${batch.map((f) => f.name).join(', ')}`);
        const chips = lastQuestion(page).getByTestId('attachment-chip');
        await waitForCount(chips, batch.length);
        const sent = lastUserText(run);
        for (const f of batch) {
          assert.ok(sent.includes(f.marker!), `${f.name}: its text (${f.marker}) reached the model`);
          assert.ok(sent.includes(f.name), `${f.name}: the model is told the file's name`);
          await chips.filter({ hasText: f.name }).waitFor();
        }
      }
    });

    test('oversized and unsupported files are refused with a clear message and never attached', async () => {
      await newChat();
      const uploads: string[] = [];
      const onRequest = (r: { method(): string; url(): string }) => r.method() === 'POST' && uploads.push(r.url());
      page.on('request', onRequest);
      // Handed over as paths on disk: 12 MB sent as a buffer crosses the DevTools protocol as base64, which can take
      // longer than the action's timeout on a busy machine; a path is read by the browser itself.
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lagoon-attach-'));
      fs.writeFileSync(path.join(dir, 'huge.pdf'), Buffer.alloc(12 * 1024 * 1024, 0x20));
      fs.writeFileSync(path.join(dir, 'setup.exe'), Buffer.from('MZ\x90\x00'));
      await fileInput().setInputFiles([path.join(dir, 'huge.pdf'), path.join(dir, 'setup.exe')]);
      const alert = await waitForText(composerAlert(), 'setup.exe');
      assert.match(alert, /“huge\.pdf” is 12 MB; the limit is 10 MB per file\./);
      assert.match(alert, /“setup\.exe” is not a supported file type\./);
      assert.equal(await composerChips().count(), 0);
      // The limits are stated up front, before anything is picked.
      assert.match(await page.getByText(/^Up to 5 files, 10 MB each/).innerText(), /images \(vision models\), PDF, DOCX, PPTX, XLSX, TXT, MD, CSV/);
      page.off('request', onRequest);
      assert.deepEqual(uploads, [], 'nothing was uploaded');
      fs.rmSync(dir, { recursive: true, force: true });
    });

    test('XSS payloads in model output, user text and file names render as text: no dialog, no injected element', async () => {
      await newChat();
      const payload = [
        `<img src=x onerror="alert('img')">`,
        `<script>alert('script')</script>`,
        `<svg onload="alert('svg')"><circle r="7" data-xss="1"></circle></svg>`,
        `<iframe src="javascript:alert('iframe')"></iframe>`,
        `<a href="javascript:alert('a')">anchor XSSLINK</a>`,
        `[md XSSMDLINK](javascript:alert('md'))`,
        `<div onmouseover="alert('hover')">XSSHOVER</div>`,
        `<form action="javascript:alert('form')"><button>XSSBUTTON</button></form>`,
      ].join('\n\n');
      const hostileNames = ['<img src=x onerror=alert(1)>.txt', '<svg onload=alert(2)>.md'];
      await attach(hostileNames.map((name) => ({ name, mimeType: 'text/plain', buffer: Buffer.from('harmless text') })));
      for (const name of hostileNames) await composerChips().filter({ hasText: name }).waitFor();
      await ask(page, `<img src=x onerror=alert('user')> XSSUSER [[reply:${payload}]]`);

      const answer = lastAnswer(page);
      await answer.getByText('XSSHOVER').hover();
      await answer
        .getByText('XSSBUTTON')
        .click()
        .catch(() => {}); // if it renders at all, it must do nothing
      for (const name of ['XSSLINK', 'XSSMDLINK']) {
        const link = answer.getByText(name);
        if (await link.count())
          await link
            .first()
            .click({ modifiers: [] })
            .catch(() => {});
      }
      const question = lastQuestion(page);
      assert.match(await textOf(question), /<img src=x onerror=alert\('user'\)> XSSUSER/, 'the user text is shown as typed');
      // The server files names with <> as () for the model; either way the name is text.
      for (const marker of ['onerror=alert(1)', 'onload=alert(2)']) await question.getByTestId('attachment-chip').filter({ hasText: marker }).waitFor();
      const id = new URL(page.url()).pathname.split('/').pop();
      await waitForText(page.locator(`[data-testid="conversation-item"][data-id="${id}"]`), 'XSSUSER');

      // Everything rendered from untrusted text: the transcript and the chat list (the composer's own form aside).
      const injected = await page.evaluate(() => {
        const bad: string[] = [];
        const roots = [document.querySelector('[role="region"][aria-label="Conversation"]'), document.querySelector('[data-testid="conversation-list"]')];
        if (roots.some((r) => !r)) return ['transcript or chat list not found'];
        for (const el of roots.flatMap((r) => [...r!.querySelectorAll('*')])) {
          const tag = el.tagName.toLowerCase();
          if (['script', 'iframe', 'object', 'embed', 'form'].includes(tag)) bad.push(tag);
          if (el.hasAttribute('data-xss') || (tag === 'circle' && el.getAttribute('r') === '7')) bad.push('the svg from the answer');
          if (tag === 'img' && el.getAttribute('src') === 'x') bad.push('img src=x');
          for (const a of el.getAttributeNames()) if (/^on/i.test(a)) bad.push(`${tag}[${a}]`);
          const href = el.getAttribute('href') ?? el.getAttribute('src') ?? el.getAttribute('action') ?? '';
          if (/^\s*javascript:/i.test(href)) bad.push(`${tag} with a javascript: URL`);
        }
        return bad;
      });
      assert.deepEqual(injected, []);
      await waitForAttribute(answer, 'data-status', 'complete');
      await until(async () => (await page.evaluate(() => document.readyState)) === 'complete', 'the page to settle');
      assert.deepEqual(dialogs, [], 'no script ran');
    });

    test('no key material in any response this file received, nor in the client bundles', async () => {
      await send(page, 'one more [[tokens:3]]');
      await waitForAttribute(lastAnswer(page), 'data-status', 'complete');
      const scanned = await assertNoKeyMaterial(run);
      assert.ok(scanned.responses > 20, `scanned ${scanned.responses} responses`);
    });
  });
