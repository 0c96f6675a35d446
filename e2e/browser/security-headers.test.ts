// The security headers of the app's pages, fetched through the real front door serving the built Next app: a
// Content-Security-Policy with a fresh nonce per request (and that nonce on every script of the page), no eval, no
// framing; nosniff, Referrer-Policy, Permissions-Policy; HSTS only over https; nosniff on both APIs too.
// (The browser test files run the whole app under this policy and fail on any violation: support/app.ts.)
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Harness, hasNextBuild, nextDistDir, startHarness } from '../support/harness.ts';

const skip = hasNextBuild() ? false : `no Next build in ${nextDistDir()}: run \`npm run build\` first (npm test does)`;

const directives = (policy: string) =>
  new Map(
    policy
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .map(([name, ...values]) => [name, values] as const),
  );

if (skip) test('security headers of the pages', { skip }, () => {});
else
  describe('security headers of the pages', () => {
    let h: Harness;
    let proxied: Harness;
    before(async () => {
      h = await startHarness({ app: { next: true } });
      proxied = await startHarness({ app: { next: true }, env: { LAGOON_TRUST_PROXY: '1' } });
    });
    after(async () => {
      await h?.close();
      await proxied?.close();
    });

    async function page(path: string, headers: Record<string, string> = {}, on = () => h) {
      const res = await fetch(`${on().origin}${path}`, { headers, redirect: 'manual' });
      return { res, html: await res.text() };
    }

    test('every page: a nonce-based policy without eval that forbids framing, and the nonce on each of its scripts', async () => {
      for (const path of ['/sign-in', '/sign-up', '/', '/characters', '/usage', '/account', '/c/abc', '/no-such-page']) {
        const { res, html } = await page(path);
        const policy = res.headers.get('content-security-policy');
        assert.ok(policy, `${path}: a Content-Security-Policy`);
        const d = directives(policy);
        const script = d.get('script-src') ?? [];
        const nonce = script.map((s) => /^'nonce-([A-Za-z0-9+/=]+)'$/.exec(s)?.[1]).find(Boolean);
        assert.ok(nonce, `${path}: script-src has a nonce (${script.join(' ')})`);
        assert.ok(script.includes("'strict-dynamic'"));
        assert.ok(!policy.includes('unsafe-eval'), `${path}: no 'unsafe-eval'`);
        assert.ok(!script.includes("'unsafe-inline'"), `${path}: no inline scripts without the nonce`);
        assert.deepEqual(d.get('frame-ancestors'), ["'none'"]);
        assert.deepEqual(d.get('object-src'), ["'none'"]);
        assert.deepEqual(d.get('connect-src'), ["'self'"]);
        assert.ok(!d.has('upgrade-insecure-requests'), 'plain http: nothing to upgrade to');
        assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
        assert.equal(res.headers.get('referrer-policy'), 'same-origin');
        assert.match(res.headers.get('permissions-policy') ?? '', /camera=\(\), .*microphone=\(self\)/);
        assert.equal(res.headers.get('x-frame-options'), 'DENY');
        assert.equal(res.headers.get('strict-transport-security'), null, 'no HSTS over plain http');
        if (res.status !== 200) continue; // a redirect has no scripts
        // Every <script> the page carries has the nonce (Next's own and the theme script), and none without it.
        const tags = [...html.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]);
        assert.ok(tags.length > 1, `${path}: the page has scripts`);
        for (const tag of tags) assert.ok(tag.includes(`nonce="${nonce}"`), `${path}: ${tag} has the nonce`);
        assert.ok(html.includes('lagoon-theme'), `${path}: the theme script is there`);
      }
    });

    test('the nonce differs per request, and a client cannot choose it', async () => {
      const nonces = new Set<string>();
      // A value no page text can hold by chance (the message catalogues that pages carry say "chosen" in places).
      const chosen = 'zq7ClientNonce';
      for (let i = 0; i < 5; i++) {
        const { res, html } = await page('/sign-in', { 'content-security-policy': `script-src 'nonce-${chosen}'`, 'x-nonce': chosen });
        const nonce = /'nonce-([^']+)'/.exec(res.headers.get('content-security-policy') ?? '')?.[1];
        assert.ok(nonce && nonce !== chosen);
        assert.ok(!html.includes(chosen), 'the client-sent nonce reached the page');
        nonces.add(nonce);
      }
      assert.equal(nonces.size, 5);
    });

    test('built assets: nosniff, no page policy', async () => {
      const { html } = await page('/sign-in');
      const asset = /src="(\/_next\/static\/[^"]+\.js)"/.exec(html)?.[1];
      assert.ok(asset, 'the page loads a built script');
      const res = await fetch(`${h.origin}${asset}`);
      await res.arrayBuffer();
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
      assert.equal(res.headers.get('content-security-policy'), null);
    });

    test('HSTS and upgrade-insecure-requests only when the browser came over https (a trusted proxy says so)', async () => {
      const direct = await page('/sign-in', { 'x-forwarded-proto': 'https' });
      assert.equal(direct.res.headers.get('strict-transport-security'), null, 'X-Forwarded-Proto is not trusted without LAGOON_TRUST_PROXY');
      const viaProxy = await page('/sign-in', { 'x-forwarded-proto': 'https' }, () => proxied);
      assert.equal(viaProxy.res.headers.get('strict-transport-security'), 'max-age=31536000');
      assert.ok(directives(viaProxy.res.headers.get('content-security-policy') ?? '').has('upgrade-insecure-requests'));
      const plain = await page('/sign-in', { 'x-forwarded-proto': 'http' }, () => proxied);
      assert.equal(plain.res.headers.get('strict-transport-security'), null);
    });

    test('both APIs answer with nosniff (successes and errors)', async () => {
      for (const path of ['/api/v1/models', '/api/v1/no-such-route', '/api/app/auth/me', '/api/app/no-such-route']) {
        const res = await fetch(`${h.origin}${path}`);
        await res.arrayBuffer();
        assert.equal(res.headers.get('x-content-type-options'), 'nosniff', path);
      }
    });
  });
