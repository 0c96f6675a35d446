// Tools in Chromium: the operator adds MCP servers on /operator/tools (the SDK's own servers, started here: one over
// streamable HTTP with a sealed Authorization header, one over stdio) and tests them; a user switches one on in the
// chat's settings and asks; the scripted model calls the MCP tool, the transcript shows the call live and, opened,
// its arguments and result, then the answer that used it; a reload shows the same step. Ends with the key-material
// scan, which also looks for the operator's header value.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { screenshot, seriousA11yViolations } from '../support/browser.ts';
import { STDIO_SERVER, startHttpMcp, type TestHttpMcp } from '../support/mcp/http-server.ts';
import { type AppRun, browserSkip, startApp, type TestUser } from './support/app.ts';
import { answerBody, ask, lastAnswer } from './support/chat.ts';
import { assertNoKeyMaterial } from './support/key-scan.ts';
import { textOf, until, waitForAttribute, waitForText } from './support/wait.ts';

const skip = browserSkip();
const HEADER_VALUE = 'Bearer operator-mcp-token-0123456789';
const NEW_HEADER_VALUE = 'Bearer operator-mcp-token-replaced-9876543210';

if (skip) test('browser: tools over MCP', { skip }, () => {});
else
  describe('browser: tools over MCP', () => {
    let run: AppRun;
    let mcp: TestHttpMcp;
    let op: TestUser;
    let page: Page;

    before(async () => {
      mcp = await startHttpMcp();
      run = await startApp({ env: { LAGOON_MCP_STDIO: '1', LAGOON_FETCH_ALLOW_HOSTS: '127.0.0.1' } });
      op = await run.newUser({ usd: 5, displayName: 'Operator' });
      ({ page } = await run.newPage());
      await run.signIn(page, op.email, '/operator');
    });
    after(async () => {
      await run?.close();
      await mcp?.close();
    });

    const row = (name: string) => page.locator(`[data-testid="mcp-row"][data-name="${name}"]`);

    test('the operator adds an HTTP and a stdio MCP server and sees their tools', async () => {
      await page.getByTestId('operator-tools-link').click();
      await page.getByTestId('operator-tools-page').waitFor();
      await page.getByTestId('add-mcp-name').fill('calc');
      await page.getByTestId('add-mcp-url').fill(mcp.url);
      await page.getByTestId('add-mcp-header-name').fill('Authorization');
      await page.getByTestId('add-mcp-header-value').fill(HEADER_VALUE);
      await page.getByTestId('add-mcp-submit').click();
      await waitForText(row('calc'), /headers: Authorization \(sealed\)/);
      await row('calc').getByTestId('mcp-test').click();
      await waitForText(row('calc').getByTestId('mcp-tools'), /Tools \(\d+ ms\): .*add/);
      assert.ok(mcp.authorizations.includes(HEADER_VALUE), 'the sealed header reaches the server');
      // Replaced from its dialog: the new value is what the server gets from then on.
      await row('calc').getByTestId('mcp-headers').click();
      await page.getByTestId('mcp-header-value').fill(NEW_HEADER_VALUE);
      await page.getByTestId('mcp-header-save').click();
      await page.getByTestId('mcp-headers-dialog').waitFor({ state: 'detached' });
      await row('calc').getByTestId('mcp-test').click();
      await until(() => mcp.authorizations.includes(NEW_HEADER_VALUE), 'the new header to reach the server');

      await page.getByTestId('add-mcp-name').fill('local');
      await page.getByTestId('add-mcp-transport').selectOption('stdio');
      await page.getByTestId('add-mcp-command').fill(process.execPath);
      await page.getByTestId('add-mcp-args').fill(STDIO_SERVER);
      await page.getByTestId('add-mcp-submit').click();
      await row('local').getByTestId('mcp-test').click();
      await waitForText(row('local').getByTestId('mcp-tools'), /echo/);
      await screenshot(page, 'operator-tools');
      assert.deepEqual(await seriousA11yViolations(page), [], 'axe on /operator/tools');
    });

    test('a chat switches a server on; the tool call and its result show in the transcript, live and after a reload', async () => {
      await page.goto(`${run.h.origin}/`);
      await page.getByTestId('composer-input').waitFor();
      await page.getByTestId('chat-settings').click();
      await page.locator('[data-testid="tool-toggle"][data-name="calc"]').check();
      assert.deepEqual(await seriousA11yViolations(page), [], 'axe on the chat settings with tools');
      await page.getByRole('button', { name: 'Save' }).click();

      const text = await ask(page, 'What is 2 + 3? [[tool:calc__add:{"a":2,"b":3}]] [[slow:30]] [[reply:The sum is 5.]]');
      assert.equal(text, 'The sum is 5.');
      const step = lastAnswer(page).getByTestId('tool-step');
      await waitForAttribute(step, 'data-status', 'done');
      assert.equal(await step.getAttribute('data-tool'), 'calc__add');
      await waitForText(step.locator('summary'), /Called\s*calc__add\s*on calc/);
      await step.locator('summary').click();
      assert.equal(await textOf(step.getByTestId('tool-result')), '2 + 3 = 5');
      assert.match(await textOf(step.getByTestId('tool-arguments')), /"a": 2,\s*"b": 3/);
      await screenshot(page, 'tool-step');
      assert.deepEqual(await seriousA11yViolations(page), [], 'axe on an answer with an open tool step');

      await page.reload();
      const again = lastAnswer(page).getByTestId('tool-step');
      await waitForAttribute(again, 'data-status', 'done');
      await again.locator('summary').click();
      assert.equal(await textOf(again.getByTestId('tool-result')), '2 + 3 = 5');
      assert.equal(await textOf(answerBody(lastAnswer(page))), 'The sum is 5.');
      await until(async () => !(await page.content()).includes('operator-mcp-token'), 'no header value on the page');
      assert.ok(mcp.authorizations.at(-1) === NEW_HEADER_VALUE, 'the chat’s calls carry the replaced header');
    });

    test('no key material reached the browser', async () => {
      await assertNoKeyMaterial(run, [HEADER_VALUE, NEW_HEADER_VALUE]);
    });
  });
