// Remote mode in Chromium: the app answers through an external OpenAI-compatible API (here a second Lagoon server
// with its own scripted engine) using INFERENCE_BASE_URL and the server-held INFERENCE_API_KEY. Chat, stop and the
// catalogue pages work, and neither that key nor its hash reaches the browser in any response or client bundle.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { hashSecret } from '../../lib/auth/keys.ts';
import { type Harness, startHarness } from '../support/harness.ts';
import { type AppRun, browserSkip, startApp } from './support/app.ts';
import { answerBody, ask, lastAnswer, send } from './support/chat.ts';
import { assertNoKeyMaterial } from './support/key-scan.ts';
import { until, waitForAttribute, waitForText } from './support/wait.ts';

const skip = browserSkip();

if (skip) test('browser: remote inference mode', { skip }, () => {});
else
  describe('browser: remote inference mode', () => {
    let upstream: Harness;
    let upstreamKey: string;
    let run: AppRun;
    let page: Page;

    before(async () => {
      upstream = await startHarness();
      upstreamKey = (await upstream.newAccount({ usd: 10 })).key;
      run = await startApp({ env: { INFERENCE_BASE_URL: upstream.base, INFERENCE_API_KEY: upstreamKey } });
      const user = await run.newUser();
      ({ page } = await run.newPage());
      await run.signIn(page, user.email);
      await page.getByTestId('composer-input').waitFor();
    });
    after(async () => {
      await run?.close();
      await upstream?.close();
    });

    test('answers stream from the external API with the server-held key; stop ends the upstream stream', async () => {
      const upstreamCalls = upstream.engine.requests.length;
      const localCalls = run.h.engine.requests.length;
      assert.equal(await ask(page, 'Hello over there [[reply:Answered by the remote API.]]'), 'Answered by the remote API.');
      assert.equal(upstream.engine.requests.length, upstreamCalls + 1, 'the external API answered');
      assert.equal(run.h.engine.requests.length, localCalls, 'the local engine was not used');

      const aborted = upstream.engine.abortedStreams;
      await send(page, 'Count [[tokens:600]] [[slow:20]]');
      await waitForText(answerBody(lastAnswer(page)), 'w5 ');
      await page.getByTestId('stop-button').click();
      await waitForAttribute(lastAnswer(page), 'data-status', 'stopped');
      await until(() => upstream.engine.abortedStreams > aborted, 'the upstream stream to be aborted');
    });

    test('the catalogue pages load from the external API', async () => {
      await page.goto('/characters');
      await until(async () => (await page.getByTestId('character-card').count()) >= 1, 'characters from the external API');
      await page.goto('/account');
      await page.getByTestId('balance-usd').waitFor();
    });

    test('neither INFERENCE_API_KEY nor its hash, nor any stored key, reaches the browser or the bundles', async () => {
      const scanned = await assertNoKeyMaterial(run, [upstreamKey, hashSecret(upstreamKey)]);
      assert.ok(scanned.responses > 20, `scanned ${scanned.responses} responses`);
    });
  });
