// The app API through the real server with the Next pages attached, on the harness port exactly as scripts/serve.ts
// serves it: cookies and CSRF over real HTTP, the client address read by the server (a forged X-Forwarded-For is
// ignored), JSON 404s and 405s from the front door rather than Next, and no key material in any response. Needs a Next build (`npm run build`; LAGOON_NEXT_DIST
// picks another folder) and is skipped with a message without one.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { operatorSetupToken } from '../../lib/users/operator-setup.ts';
import { assertNoKeyMaterial, storedSecrets } from '../support/app-requests.ts';
import { type Harness, hasNextBuild, nextDistDir, startHarness } from '../support/harness.ts';
import { rawHttp } from '../support/raw-http.ts';

const skip = hasNextBuild() ? false : `no Next build in ${nextDistDir()}: run \`npm run build\` first (npm test does)`;

let h: Harness;
let apiKey: string;

interface Got {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

/** A browser on this site: keeps its cookie and CSRF token, sends Origin on writes, and scans every response. */
class Browser {
  cookie = '';
  csrf = '';

  async send(method: string, path: string, body?: unknown, extra: Record<string, string> = {}): Promise<Got> {
    const headers: Record<string, string> = {};
    if (this.cookie) headers.cookie = this.cookie;
    if (method !== 'GET') {
      headers.origin = h.origin;
      if (this.csrf) headers['x-csrf-token'] = this.csrf;
    }
    if (body !== undefined) headers['content-type'] = 'application/json';
    Object.assign(headers, extra);
    const res = await fetch(`${h.origin}/api/app${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), redirect: 'manual' });
    const text = await res.text();
    assertNoKeyMaterial(`${JSON.stringify([...res.headers])}\n${text}`, [...(await storedSecrets(h.svc.store)), apiKey], `${method} ${path}`);
    const set = res.headers.get('set-cookie');
    if (set) this.cookie = /Max-Age=0/.test(set) ? '' : set.split(';')[0];
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: res.status, headers: res.headers, text, json };
  }
}

// Skipped as one test (counted in the run's summary), not as a silent suite.
if (skip) test('the app API through Next', { skip }, () => {});
else
  describe('the app API through the server, with the Next pages attached', () => {
    before(async () => {
      h = await startHarness({ app: { next: true }, env: { LAGOON_SIGNIN_MAX_FAILURES_PER_IP: '3' } });
      apiKey = (await h.newAccount()).key;
    });
    after(() => h?.close());

    test('sign up, me, create, list, read, rename, export, search, delete, sign out', async () => {
      const b = new Browser();
      const setupToken = await operatorSetupToken(h.svc.store, undefined);
      const up = await b.send('POST', '/auth/sign-up', { email: 'next@example.com', password: 'correct horse battery', displayName: 'Nex', setupToken });
      assert.equal(up.status, 201, up.text);
      assert.match(up.headers.get('set-cookie') ?? '', /^lagoon_session=[^;]+; Path=\/; Max-Age=\d+; HttpOnly; SameSite=Lax$/);
      assert.equal(up.headers.get('cache-control'), 'no-store');
      b.csrf = up.json.csrfToken;

      const me = await b.send('GET', '/auth/me');
      assert.equal(me.status, 200);
      assert.equal(me.json.user.email, 'next@example.com');
      assert.equal(me.json.user.isAdmin, true);

      const models = await b.send('GET', '/models');
      assert.ok(models.json.models.some((m: { isDefault: boolean }) => m.isDefault));
      assert.equal((await b.send('GET', '/characters?q=tutor')).json.characters[0].slug, 'socratic-tutor');
      const account = await b.send('GET', '/account');
      assert.deepEqual(account.json.balances, { usd: 0, diem: 1 });

      const created = await b.send('POST', '/conversations', { characterSlug: 'captain-reef' });
      assert.equal(created.status, 201, created.text);
      const id = created.json.id;
      assert.equal((await b.send('GET', '/conversations?limit=10')).json.items[0].id, id);
      const read = await b.send('GET', `/conversations/${id}`);
      assert.equal(read.status, 200);
      assert.deepEqual(read.json.messages, []);
      const renamed = await b.send('PATCH', `/conversations/${id}`, { title: 'Sea shanties' });
      assert.equal(renamed.json.title, 'Sea shanties');

      const md = await b.send('GET', `/conversations/${id}/export?format=md`);
      assert.equal(md.status, 200);
      assert.match(md.headers.get('content-disposition') ?? '', /^attachment; filename="Sea shanties \d{4}-\d{2}-\d{2}\.md"/);
      assert.match(md.text, /^# Sea shanties/);
      // One header, not the layer's and the handler's both (`nosniff, nosniff`).
      assert.equal(md.headers.get('x-content-type-options'), 'nosniff');
      assert.equal((await b.send('GET', '/search?q=shanties')).json.hits[0].conversation.id, id);

      assert.equal((await b.send('DELETE', `/conversations/${id}`)).status, 204);
      assert.equal((await b.send('GET', `/conversations/${id}`)).status, 404);

      const out = await b.send('POST', '/auth/sign-out');
      assert.equal(out.status, 204);
      assert.equal((await b.send('GET', '/auth/me')).status, 401);
    });

    test("app answers carry the request id in CF-RAY, and large JSON is compressed like the API's", async () => {
      const b = new Browser();
      const up = await b.send('POST', '/auth/sign-up', { email: 'zip@example.com', password: 'correct horse battery' });
      assert.equal(up.status, 201);
      const list = await b.send('GET', '/characters', undefined, { 'accept-encoding': 'br' });
      assert.equal(list.status, 200);
      assert.ok(list.text.length > 1024, `${list.text.length} bytes`);
      assert.equal(list.headers.get('content-encoding'), 'br');
      assert.ok(list.json.characters.length > 0);
      assert.match(list.headers.get('cf-ray') ?? '', /^[0-9a-f]{24}$/);
      const plain = await b.send('GET', '/characters', undefined, { 'accept-encoding': 'identity' });
      assert.equal(plain.headers.get('content-encoding'), null);
      assert.deepEqual(plain.json, list.json);
      const small = await b.send('GET', '/auth/me', undefined, { 'accept-encoding': 'br' });
      assert.equal(small.headers.get('content-encoding'), null);
      const missing = await b.send('GET', '/conversations/00000000-0000-0000-0000-000000000000');
      assert.deepEqual([missing.status, missing.json.code, typeof missing.json.error], [404, 'NOT_FOUND', 'string']);
      assert.match(missing.headers.get('cf-ray') ?? '', /^[0-9a-f]{24}$/);
    });

    test('asterisk and absolute request targets: OPTIONS * is 204, GET * a 400 in our body, never a 500 from the pages', async () => {
      const raw = (bytes: string) => rawHttp(h.origin, bytes, 3000);
      const options = await raw('OPTIONS * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
      assert.match(options, /^HTTP\/1\.1 204/);
      assert.match(options, /allow: GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS/i);
      const star = await raw('GET * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
      assert.match(star, /^HTTP\/1\.1 400/);
      assert.match(star, /"code":"INVALID_REQUEST"/);
      const absolute = await raw(`GET ${h.origin}/healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
      assert.match(absolute, /^HTTP\/1\.1 200/);
      const page = await raw(`GET ${h.origin}/sign-in HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
      assert.match(page, /^HTTP\/1\.1 200/);
    });

    test('CSRF: a write without the token or from another origin is refused', async () => {
      const b = new Browser();
      const up = await b.send('POST', '/auth/sign-up', { email: 'csrf@example.com', password: 'correct horse battery' });
      assert.equal(up.status, 201);
      const noToken = await b.send('POST', '/conversations', {});
      assert.equal(noToken.status, 403);
      b.csrf = up.json.csrfToken;
      const foreign = await b.send('POST', '/conversations', {}, { origin: 'https://evil.example' });
      assert.equal(foreign.status, 403);
      const signIn = await new Browser().send(
        'POST',
        '/auth/sign-in',
        { email: 'csrf@example.com', password: 'correct horse battery' },
        { origin: 'https://evil.example' },
      );
      assert.equal(signIn.status, 403);
    });

    test('sign-in failures are counted per client address, which a forged X-Forwarded-For cannot change', async () => {
      const b = new Browser();
      for (let i = 0; i < 3; i++) {
        const r = await b.send(
          'POST',
          '/auth/sign-in',
          { email: `nobody${i}@example.com`, password: 'wrong password' },
          { 'x-forwarded-for': `203.0.113.${i}` },
        );
        assert.equal(r.status, 401);
      }
      const r = await b.send('POST', '/auth/sign-in', { email: 'nobody9@example.com', password: 'wrong password' }, { 'x-forwarded-for': '203.0.113.99' });
      assert.equal(r.status, 429);
      assert.ok(Number(r.headers.get('retry-after')) > 0);
    });

    test('unknown app routes are JSON 404s; a method a route does not have is 405', async () => {
      const b = new Browser();
      const missing = await b.send('GET', '/no-such-route');
      assert.equal(missing.status, 404);
      assert.deepEqual(missing.json, { error: 'No such endpoint: GET /api/app/no-such-route', code: 'NOT_FOUND' });
      assert.match(missing.headers.get('cf-ray') ?? '', /^[0-9a-f]{24}$/, 'app answers carry the request id');
      const wrongMethod = await b.send('DELETE', '/auth/me');
      assert.equal(wrongMethod.status, 405);
      assert.equal(wrongMethod.json.code, 'METHOD_NOT_ALLOWED');
      const signedOut = await b.send('GET', '/conversations');
      assert.equal(signedOut.status, 401);
      assert.equal(signedOut.json.code, 'AUTHENTICATION_FAILED');
    });
  });
