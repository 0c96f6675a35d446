// Mermaid diagrams and HTML previews in answers, in Chromium against the real app and service: a scripted answer
// with a ```mermaid block draws an SVG inside a sandboxed frame of /sandbox/render (sandbox="allow-scripts", no
// allow-same-origin), sized to its content; a ```html block shows as code with a Preview that renders it there too.
// The preview's own script then probes its walls: it cannot read the parent document, has no cookies or storage, and
// its request to /api/app with the user's credentials is refused (the sandbox's policy allows no connection, and its
// origin is opaque). The sandbox page's headers; Mermaid stays out of the chat's own bundles. axe on the chat with
// both, light and dark. Ends with the key-material scan (the only CSP reports are the probe's blocked request).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { clientBundleFiles, screenshot, seriousA11yViolations } from '../support/browser.ts';
import { nextDistDir } from '../support/harness.ts';
import { type AppRun, browserSkip, startApp, type TestUser } from './support/app.ts';
import { ask, lastAnswer } from './support/chat.ts';
import { assertNoKeyMaterial } from './support/key-scan.ts';
import { until, waitForAttribute } from './support/wait.ts';

const skip = browserSkip();

const DIAGRAM = ['```mermaid', 'graph TD', '  A[Question] --> B{Lagoon}', '  B --> C[Answer]', '```'].join('\n');
const PROBE = `<!doctype html>
<html><head><title>Probe</title></head><body>
<h1 id="hello">Hello from the preview</h1>
<pre id="probe">probing</pre>
<script>
(async () => {
  const out = [];
  try { out.push('parent:' + parent.document.title); } catch (e) { out.push('parent:blocked'); }
  try { out.push('cookie:' + document.cookie); } catch (e) { out.push('cookie:blocked'); }
  try { localStorage.setItem('k', 'v'); out.push('storage:open'); } catch (e) { out.push('storage:blocked'); }
  try {
    const r = await fetch('/api/app/auth/me', { credentials: 'include' });
    out.push('fetch:' + r.status + ':' + (await r.text()).slice(0, 60));
  } catch (e) { out.push('fetch:blocked'); }
  document.getElementById('probe').textContent = out.join(' ');
})();
</script>
</body></html>`;
const ANSWER = `Here is the flow:\n\n${DIAGRAM}\n\nAnd a page:\n\n\`\`\`html\n${PROBE}\n\`\`\`\n\nDone.`;

if (skip) test('browser: diagrams and previews', { skip }, () => {});
else
  describe('browser: diagrams and previews', () => {
    let run: AppRun;
    let user: TestUser;
    let page: Page;

    before(async () => {
      run = await startApp();
      user = await run.newUser({ usd: 5 });
      ({ page } = await run.newPage({ viewport: { width: 1280, height: 1400 } }));
      await run.signIn(page, user.email);
      await page.getByTestId('composer-input').waitFor();
    });
    after(() => run?.close());

    const answer = () => lastAnswer(page);

    test('the sandbox page: its own policy (sandboxed, no connections), framed only by this site', async () => {
      const res = await fetch(`${run.h.origin}/sandbox/render`);
      assert.equal(res.status, 200);
      const policy = res.headers.get('content-security-policy') ?? '';
      for (const d of ["connect-src 'none'", "default-src 'none'", "frame-ancestors 'self'", 'sandbox allow-scripts', "form-action 'none'"])
        assert.ok(policy.includes(d), `${d} in ${policy}`);
      assert.ok(!/allow-same-origin/.test(policy));
      assert.equal(res.headers.get('x-frame-options'), 'SAMEORIGIN');
      assert.equal((await fetch(`${run.h.origin}/sandbox/nothing`)).status, 404);
      assert.equal((await fetch(`${run.h.origin}/sandbox/render`, { method: 'POST' })).status, 405);
      const mermaid = await fetch(`${run.h.origin}/sandbox/mermaid.js`);
      assert.equal(mermaid.status, 200);
      assert.match(mermaid.headers.get('content-type') ?? '', /javascript/);
      // The pages themselves may frame only this site (and every page but the sandbox refuses to be framed).
      const home = await fetch(`${run.h.origin}/sign-in`);
      assert.match(home.headers.get('content-security-policy') ?? '', /frame-src 'self'/);
      assert.match(home.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/);
    });

    test('a mermaid block becomes an SVG diagram in a sandboxed frame, sized to it', async () => {
      await ask(page, `Draw it [[reply:${ANSWER}]]`);
      const frameEl = answer().getByTestId('sandbox-mermaid');
      await frameEl.waitFor();
      assert.equal(await frameEl.getAttribute('sandbox'), 'allow-scripts');
      assert.equal(await frameEl.getAttribute('src'), '/sandbox/render');
      await waitForAttribute(frameEl, 'data-state', 'ok', 20_000);
      const frame = answer().frameLocator('[data-testid="sandbox-mermaid"]');
      const svg = frame.locator('svg[role="img"]');
      await svg.waitFor();
      // The diagram's labels are in the SVG.
      const labels = await frame.locator('svg').first().textContent();
      assert.match(labels ?? '', /Question/);
      assert.match(labels ?? '', /Answer/);
      // Sized to its content: the frame is as tall as the drawing (within a few pixels), not the default.
      const svgBox = await svg.boundingBox();
      await until(async () => {
        const box = await frameEl.boundingBox();
        return box && svgBox && box.height >= svgBox.height && box.height < svgBox.height + 60;
      }, 'the frame sized to the diagram');
      await screenshot(page, 'mermaid-diagram');
      // The code is one click away.
      await answer().getByTestId('mermaid-block').getByRole('button', { name: 'Code' }).click();
      await answer().getByTestId('mermaid-block').locator('pre').waitFor();
      await answer().getByTestId('mermaid-block').getByRole('button', { name: 'Diagram' }).click();
      await frameEl.waitFor();
    });

    test('an html block previews in the sandbox, whose script can reach neither the page nor the API', async () => {
      const block = answer().getByTestId('html-block');
      await block.locator('pre').waitFor();
      assert.equal(await block.getByTestId('sandbox-html').count(), 0, 'no preview until asked');
      await block.getByRole('button', { name: 'Preview' }).click();
      const frameEl = block.getByTestId('sandbox-html');
      await waitForAttribute(frameEl, 'data-state', 'ok');
      assert.equal(await frameEl.getAttribute('sandbox'), 'allow-scripts');
      const frame = block.frameLocator('[data-testid="sandbox-html"]');
      await frame.locator('#hello').waitFor();
      const probe = frame.locator('#probe');
      const result = await until(async () => {
        const t = (await probe.textContent()) ?? '';
        return t.includes('fetch:') ? t : null;
      }, 'the probe to finish');
      assert.match(result, /parent:blocked/, result);
      assert.match(result, /cookie:blocked/, result);
      assert.match(result, /storage:blocked/, result);
      assert.match(result, /fetch:blocked/, result);
      assert.ok(!result.includes(user.email), 'nothing of the user reached the preview');
      // The parent page is untouched: the probe's title read failed, the page's document is its own.
      assert.notEqual(await page.title(), 'Probe');
      await screenshot(page, 'html-preview');
    });

    test("Mermaid is loaded only by the sandbox: none of the chat's bundles hold it", () => {
      const files = clientBundleFiles(nextDistDir());
      assert.ok(files.length > 0);
      // Strings only Mermaid's own code has (its flowchart renderer's name, its parse-error diagram).
      const holders = files.filter((f) => {
        const text = fs.readFileSync(f, 'latin1');
        return text.includes('flowchart-v2') || text.includes('Syntax error in text');
      });
      assert.deepEqual(holders, []);
    });

    test('axe: no serious or critical violation on the chat with a diagram and a preview, light and dark', async () => {
      const found: string[] = [];
      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        await answer().getByTestId('sandbox-mermaid').waitFor();
        for (const v of await seriousA11yViolations(page)) found.push(`chat (${scheme}): ${v}`);
      }
      assert.deepEqual(found, []);
    });

    test("no key material reached the browser; the only CSP reports are the probe's blocked request", async () => {
      const violations = run.contexts.flatMap((c) => c.cspViolations);
      const probe = violations.filter((v) => v.includes('/api/app/auth/me'));
      assert.ok(probe.length > 0, 'the sandbox policy refused the probe');
      assert.deepEqual(
        violations.filter((v) => !v.includes('/api/app/auth/me')),
        [],
      );
      const scanned = await assertNoKeyMaterial({ ...run, contexts: run.contexts.map((c) => ({ ...c, cspViolations: [] })) }, [user.apiKey]);
      assert.ok(scanned.responses > 5, `scanned ${scanned.responses} responses`);
    });
  });
