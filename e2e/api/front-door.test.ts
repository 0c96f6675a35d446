// One front door: /api/v1 and /api/app are both answered by the lean HTTP layer from declared route tables. Every
// app route declares its auth, and the declarations match the methods (state changes need CSRF or a same-site
// Origin); app answers carry the request id; unknown paths and unparseable request targets get our JSON error body.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { apiRouter } from '../../lib/http/api.ts';
import { appRouter } from '../../lib/http/app.ts';
import { type Harness, startHarness } from '../support/harness.ts';
import { rawHttp } from '../support/raw-http.ts';

/** Sends raw bytes and returns what came back before the server closed the connection (or 2 s passed). */
const raw = (h: Harness, bytes: string) => rawHttp(h.origin, bytes);

describe('one front door', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ app: true });
  });
  after(async () => h?.close());

  test('every app route declares its auth; state-changing routes need CSRF or a same-site Origin', () => {
    const routes = appRouter(h.app!.routes).all();
    assert.ok(routes.length >= 26);
    for (const { method, path, route } of routes) {
      assert.ok(['none', 'origin', 'session', 'session+csrf', 'operator', 'operator+csrf'].includes(route.auth), `${method} ${path} declares ${route.auth}`);
      if (method !== 'GET') assert.ok(['origin', 'session+csrf', 'operator+csrf'].includes(route.auth), `${method} ${path} changes state with ${route.auth}`);
      else assert.ok(route.auth !== 'origin', `${method} ${path}`);
      // The operator's pages say so in their declaration, so no handler can forget the check.
      if (path.includes('/operator/')) assert.ok(route.auth.startsWith('operator'), `${method} ${path} is the operator's`);
    }
  });

  test('every /api/v1 route declares who may call it and its budget', () => {
    for (const { method, path, route } of apiRouter().all()) {
      assert.ok(['none', 'key', 'admin', 'wallet', 'key-or-wallet', 'caller'].includes(route.auth), `${method} ${path}`);
      assert.ok(['api', 'ip', 'model', 'rpc', 'none'].includes(route.limit), `${method} ${path}`);
      // Inference is admitted per model; the JSON-RPC proxy per caller, in requests and credits.
      if (route.auth === 'caller') assert.ok(['model', 'rpc'].includes(route.limit), `${method} ${path}: paid work is admitted by its pipeline`);
    }
  });

  test('app answers come from this layer, with the request id; unknown app paths are our JSON 404', async () => {
    const me = await fetch(`${h.origin}/api/app/auth/me`);
    assert.equal(me.status, 401);
    assert.match(me.headers.get('cf-ray') ?? '', /^[0-9a-f]{24}$/);
    assert.equal(((await me.json()) as { code: string }).code, 'AUTHENTICATION_FAILED');

    const missing = await fetch(`${h.origin}/api/app/no/such/route`);
    assert.equal(missing.status, 404);
    assert.equal(((await missing.json()) as { code: string }).code, 'NOT_FOUND');
    const wrongMethod = await fetch(`${h.origin}/api/app/auth/me`, { method: 'DELETE' });
    assert.equal(wrongMethod.status, 405);
  });

  test('a sign-up through the server: the cookie and body come back, and a foreign Origin is refused', async () => {
    const body = JSON.stringify({ email: `door-${Date.now()}@example.test`, password: 'correct horse battery staple' });
    const foreign = await fetch(`${h.origin}/api/app/auth/sign-up`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'https://evil.example' },
      body,
    });
    assert.equal(foreign.status, 403);
    const r = await fetch(`${h.origin}/api/app/auth/sign-up`, { method: 'POST', headers: { 'content-type': 'application/json', origin: h.origin }, body });
    assert.equal(r.status, 201, await r.clone().text());
    assert.match(r.headers.get('set-cookie') ?? '', /^lagoon_session=/);
    assert.ok(((await r.json()) as { csrfToken: string }).csrfToken);
  });

  test("an app request's usage row carries the id its answer sent in CF-RAY (a message, a regeneration)", async () => {
    const email = `ray-${Date.now()}@example.test`;
    const up = await fetch(`${h.origin}/api/app/auth/sign-up`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: h.origin },
      body: JSON.stringify({ email, password: 'correct horse battery staple' }),
    });
    const cookie = (up.headers.get('set-cookie') ?? '').split(';')[0];
    const { csrfToken } = (await up.json()) as { csrfToken: string };
    const send = (path: string, body: unknown) =>
      fetch(`${h.origin}/api/app${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: h.origin, cookie, 'x-csrf-token': csrfToken },
        body: JSON.stringify(body),
      });
    const usageOf = async (id: string) => {
      for (let i = 0; i < 100; i++) {
        const row = await h.svc.store.get<{ request_id: string }>('SELECT request_id FROM usage WHERE request_id = $1', [id]);
        if (row) return row;
        await new Promise((r) => setTimeout(r, 50));
      }
      return undefined;
    };
    const conv = await send('/conversations', {});
    const { id } = (await conv.json()) as { id: string };
    const sent = await send(`/conversations/${id}/messages`, { parentId: null, content: 'hello' });
    assert.equal(sent.status, 201, await sent.clone().text());
    const ray = sent.headers.get('cf-ray') ?? '';
    assert.ok(await usageOf(ray), `a usage row for ${ray}`);
    const { assistant } = (await sent.json()) as { assistant: { id: string } };
    const again = await send(`/messages/${assistant.id}/regenerate`, {});
    assert.equal(again.status, 201, await again.clone().text());
    assert.ok(await usageOf(again.headers.get('cf-ray') ?? ''), 'a usage row for the regenerated answer');
  });

  test('a request target no URL parser accepts gets a 400 in our error body, and the server stays up', async () => {
    const answer = await raw(h, 'GET http://[ HTTP/1.1\r\nHost: x\r\n\r\n');
    assert.match(answer, /^HTTP\/1\.1 400/);
    assert.match(answer, /"code":"INVALID_REQUEST"/);
    assert.equal((await fetch(`${h.origin}/healthz`)).status, 200);
  });
});
