import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { test } from 'node:test';
import { contentSecurityPolicy, NONCE_HEADER, pageSecurityHeaders, pageSecurityOptions, requestIsHttps, securePageRequest } from './security-headers.ts';

const directives = (policy: string) => new Map(policy.split('; ').map((d) => [d.split(' ')[0], d.split(' ').slice(1)] as const));

test('the policy: nonce-only scripts without eval, no framing, no plugins, connections only to this server', () => {
  const p = directives(contentSecurityPolicy('abc123=='));
  assert.deepEqual(p.get('script-src'), ["'self'", "'nonce-abc123=='", "'strict-dynamic'"]);
  assert.deepEqual(p.get('style-src'), ["'self'", "'nonce-abc123=='"], '<style> elements only with the nonce');
  assert.deepEqual(p.get('style-src-attr'), ["'unsafe-inline'"], 'style attributes (KaTeX)');
  assert.deepEqual(p.get('frame-ancestors'), ["'none'"]);
  assert.deepEqual(p.get('object-src'), ["'none'"]);
  assert.deepEqual(p.get('connect-src'), ["'self'"]);
  assert.deepEqual(p.get('default-src'), ["'self'"]);
  assert.deepEqual(p.get('img-src'), ["'self'", 'data:', 'blob:'], 'no other image host: markdown images cannot exfiltrate');
  assert.deepEqual(directives(contentSecurityPolicy('n', { imageOrigins: ['https://cdn.example'] })).get('img-src'), [
    "'self'",
    'data:',
    'blob:',
    'https://cdn.example',
  ]);
  assert.ok(!contentSecurityPolicy('n').includes('unsafe-eval'));
  assert.ok(!contentSecurityPolicy('n').includes('upgrade-insecure-requests'));
  assert.ok(directives(contentSecurityPolicy('n', { https: true })).has('upgrade-insecure-requests'));
  // next dev only: React's development build evaluates code.
  assert.ok(
    directives(contentSecurityPolicy('n', { dev: true }))
      .get('script-src')
      ?.includes("'unsafe-eval'"),
  );
});

test('HSTS only over https', () => {
  assert.equal(pageSecurityHeaders(false)['Strict-Transport-Security'], undefined);
  assert.equal(pageSecurityHeaders(true)['Strict-Transport-Security'], 'max-age=31536000');
  for (const https of [false, true]) {
    const h = pageSecurityHeaders(https);
    assert.equal(h['X-Content-Type-Options'], 'nosniff');
    assert.equal(h['Referrer-Policy'], 'same-origin');
    assert.match(h['Permissions-Policy'], /camera=\(\)/);
    assert.equal(h['X-Frame-Options'], 'DENY');
  }
});

function fakeReq(headers: Record<string, string>, encrypted = false): IncomingMessage {
  return { headers: { ...headers }, socket: { encrypted } } as unknown as IncomingMessage;
}

test('https: TLS, an https public URL, or X-Forwarded-Proto only from a trusted proxy', () => {
  const http = { trustProxy: false, publicOrigin: 'http://localhost:3000' };
  assert.equal(requestIsHttps(fakeReq({}), http), false);
  assert.equal(requestIsHttps(fakeReq({}, true), http), true);
  assert.equal(requestIsHttps(fakeReq({}), { ...http, publicOrigin: 'https://chat.example.com' }), true);
  assert.equal(requestIsHttps(fakeReq({ 'x-forwarded-proto': 'https' }), http), false, 'anyone can send the header');
  assert.equal(requestIsHttps(fakeReq({ 'x-forwarded-proto': 'https' }), { ...http, trustProxy: true }), true);
  assert.equal(requestIsHttps(fakeReq({ 'x-forwarded-proto': 'http' }), { ...http, trustProxy: true }), false);
  assert.equal(requestIsHttps(fakeReq({ 'x-forwarded-proto': 'HTTPS, http' }), { ...http, trustProxy: true }), true);
});

test('a page request gets a fresh nonce on request and response; client-sent policies and nonces are replaced', () => {
  const opts = { dev: false, trustProxy: false, publicOrigin: 'http://localhost:3000', imageOrigins: [] };
  const run = (path: string) => {
    const set: Record<string, string> = {};
    const res = { setHeader: (k: string, v: string) => (set[k] = v) } as unknown as ServerResponse;
    const req = fakeReq({ 'content-security-policy': "script-src 'nonce-attacker'", [NONCE_HEADER]: 'attacker', 'content-security-policy-report-only': 'x' });
    const nonce = securePageRequest(req, res, path, opts);
    return { nonce, req, set };
  };
  const a = run('/');
  const b = run('/');
  assert.ok(a.nonce && b.nonce && a.nonce !== b.nonce);
  assert.equal(a.req.headers[NONCE_HEADER], a.nonce);
  assert.equal(a.req.headers['content-security-policy'], a.set['Content-Security-Policy']);
  assert.ok(a.set['Content-Security-Policy'].includes(`'nonce-${a.nonce}'`));
  assert.equal(a.req.headers['content-security-policy-report-only'], undefined);
  assert.equal(a.set['X-Content-Type-Options'], 'nosniff');

  // Built assets: the plain headers, no policy (a worker script held to the page's nonce could not load).
  const asset = run('/_next/static/chunks/app.js');
  assert.equal(asset.nonce, undefined);
  assert.equal(asset.set['Content-Security-Policy'], undefined);
  assert.equal(asset.req.headers['content-security-policy'], undefined);
  assert.equal(asset.req.headers[NONCE_HEADER], undefined);
  assert.equal(asset.set['X-Content-Type-Options'], 'nosniff');
});

test('the options from the configuration: the remote API and LAGOON_IMAGE_ORIGINS may serve images', async () => {
  const { loadConfig } = await import('../config.ts');
  const local = pageSecurityOptions(loadConfig({}), false);
  assert.deepEqual(local.imageOrigins, []);
  assert.equal(local.dev, false);
  const remote = pageSecurityOptions(
    loadConfig({ INFERENCE_BASE_URL: 'https://api.example/api/v1', INFERENCE_API_KEY: 'k', LAGOON_IMAGE_ORIGINS: 'https://cdn.example' }),
    true,
  );
  assert.deepEqual(remote.imageOrigins, ['https://api.example', 'https://cdn.example']);
  assert.equal(remote.trustProxy, true);
});
