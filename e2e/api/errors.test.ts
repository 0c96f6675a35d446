// Every error status of the chat endpoint, in the one error body layout: { error, code, ...details }.
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, test } from 'node:test';
import { accountKeys } from '../../lib/auth/keys.ts';
import { type Harness, post, scriptedModel, startHarness } from '../support/harness.ts';

let h: Harness;
let key: string;
let accountId: string;
before(async () => {
  h = await startHarness({
    models: [
      {
        id: 'tiny-queue',
        name: 'Tiny queue',
        type: 'text',
        tier: 'S',
        pricing: { input_usd: 1, output_usd: 1, input_diem: 1, output_diem: 1 },
        context_length: 4096,
        engine: { kind: 'openai', baseUrl: 'http://127.0.0.1:9/v1', model: 'x', maxConcurrency: 1, maxQueue: 0 },
      },
    ],
  });
  ({ key, accountId } = await h.newAccount({ usd: 5 }));
});
after(() => h.close());

const chat = (content: string, extra: Record<string, unknown> = {}) =>
  post(h, '/chat/completions', key, { model: 'scripted-model', messages: [{ role: 'user', content }], ...extra });

function assertError(r: { status: number; json: any }, status: number, code: string) {
  assert.equal(r.status, status, JSON.stringify(r.json));
  assert.equal(r.json.code, code);
  assert.equal(typeof r.json.error, 'string');
  assert.ok(r.json.error.length > 0);
}

test('401: malformed, unknown, expired and revoked keys (no credentials at all: the x402 discovery 402)', async () => {
  assertError(await post(h, '/chat/completions', undefined, { model: 'x', messages: [] }), 402, 'AUTHENTICATION_REQUIRED');
  assertError(await post(h, '/chat/completions', undefined, {}, { authorization: 'Basic abc' }), 401, 'AUTHENTICATION_FAILED');
  assertError(await post(h, '/chat/completions', 'lgn_inf_unknown', {}), 401, 'AUTHENTICATION_FAILED');
  const keys = accountKeys(h.svc.store, accountId);
  const expired = await keys.create({ type: 'INFERENCE', expiresAt: Date.now() - 1 });
  assertError(await post(h, '/chat/completions', expired.secret, {}), 401, 'AUTHENTICATION_FAILED_INACTIVE_KEY');
  const revoked = await keys.create({ type: 'INFERENCE' });
  await keys.revoke(revoked.key.id);
  assertError(await post(h, '/chat/completions', revoked.secret, {}), 401, 'AUTHENTICATION_FAILED_INACTIVE_KEY');
});

test('a client that goes away halfway through a large body: nothing held, the next request answered', async () => {
  const { port } = new URL(h.origin);
  await new Promise<void>((resolve, reject) => {
    const socket = net.connect(Number(port), '127.0.0.1', () => {
      socket.write(
        `POST /api/v1/chat/completions HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\nauthorization: Bearer ${key}\r\ncontent-length: ${8 << 20}\r\n\r\n`,
      );
      socket.write(`{"model": "x", "messages": [{"role": "user", "content": "${'a'.repeat(3 << 20)}`, () => {
        socket.destroy();
        resolve();
      });
    });
    socket.on('error', reject);
  });
  assertError(await post(h, '/chat/completions', key, '{"model": '), 400, 'INVALID_JSON');
});

test('415 for a body that is not JSON', async () => {
  const r = await post(h, '/chat/completions', key, 'model=x', { 'content-type': 'application/x-www-form-urlencoded' });
  assertError(r, 415, 'INVALID_CONTENT_TYPE');
});

test('400: invalid JSON, a non-object body, each invalid field named; unknown top-level fields pass unvalidated', async () => {
  assertError(await post(h, '/chat/completions', key, '{"model": '), 400, 'INVALID_JSON');
  // Past a megabyte the body is parsed in a thread: the same 400, with the parser's words.
  const cut = await post(h, '/chat/completions', key, `{"model": "x", "messages": [{"role": "user", "content": "${'a'.repeat(2 << 20)}"`);
  assertError(cut, 400, 'INVALID_JSON');
  assert.match(cut.json.error, /^The request body is not valid JSON: /);
  assertError(await post(h, '/chat/completions', key, '[]'), 400, 'INVALID_REQUEST');
  const r = await post(h, '/chat/completions', key, {
    messages: [{ role: 'wizard', content: 'x' }],
    temperature: 3,
    frequency_penalty: -2.5,
    n: 0,
    stop: ['1', '2', '3', '4', '5'],
  });
  assertError(r, 400, 'INVALID_REQUEST');
  for (const field of ['model', 'messages', 'temperature', 'frequency_penalty', 'n', 'stop']) {
    assert.ok(r.json.details[field], `details names ${field}`);
    assert.match(r.json.error, new RegExp(field));
  }
  // The spec lets fields it does not document through (dropped, not forwarded), as the public API's clients send them.
  assert.equal((await chat('x', { turbo: true })).status, 200);
  assertError(await chat('x', { frequency_penalty: 2.5 }), 400, 'INVALID_REQUEST');
  assert.equal((await chat('x', { frequency_penalty: -2 })).status, 200);
  assertError(await post(h, '/chat/completions', key, { model: 'scripted-model', messages: [{ role: 'assistant' }] }), 400, 'INVALID_REQUEST');
});

test('400: a content part the model cannot take', async () => {
  const image = { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } };
  const r = await post(h, '/chat/completions', key, { model: 'scripted-model', messages: [{ role: 'user', content: [{ type: 'text', text: 'see' }, image] }] });
  assertError(r, 400, 'UNSUPPORTED_CONTENT');
  assert.match(r.json.error, /image input/);
  assertError(
    await post(h, '/chat/completions', key, {
      model: 'scripted-model',
      messages: [{ role: 'user', content: [{ type: 'input_audio', input_audio: { data: 'AAAA', format: 'wav' } }] }],
    }),
    400,
    'UNSUPPORTED_CONTENT',
  );
  assertError(
    await post(h, '/chat/completions', key, {
      model: 'scripted-model',
      messages: [{ role: 'user', content: [{ type: 'video_url', video_url: { url: 'https://example.com/v.mp4' } }] }],
    }),
    400,
    'UNSUPPORTED_CONTENT',
  );
  // A vision model receives the image part unchanged.
  const ok = await post(h, '/chat/completions', key, { model: 'vision-model', messages: [{ role: 'user', content: [{ type: 'text', text: 'see' }, image] }] });
  assert.equal(ok.status, 200);
  assert.deepEqual(h.engine.requests.at(-1)!.body.messages.at(-1).content[1], image);
});

test('402 when the balance cannot cover the request', async () => {
  const poor = await h.newAccount({ usd: 0 });
  const r = await post(h, '/chat/completions', poor.key, { model: 'scripted-model', messages: [{ role: 'user', content: 'hi' }] });
  assertError(r, 402, 'INSUFFICIENT_BALANCE');
});

test('404: unknown model, unknown character, unknown endpoint; 405 for a wrong method', async () => {
  assertError(await chat('x', { model: 'nope' }), 404, 'MODEL_NOT_FOUND');
  assertError(await chat('x', { service_parameters: { character_slug: 'nobody' } }), 404, 'CHARACTER_NOT_FOUND');
  assertError(await post(h, '/no/such/thing', key, {}), 404, 'NOT_FOUND');
  assertError(await post(h, '/models', key, {}), 405, 'METHOD_NOT_ALLOWED');
});

test('500 when inference fails, with x-service-host-name; nothing is charged', async () => {
  // Earlier tests' charges settle in the background: commit them first, so only this test's requests count.
  await h.svc.ledger.drain();
  const before = await h.svc.store.get<any>('SELECT usd FROM accounts WHERE id = $1', [accountId]);
  const r = await chat('[[status:500]]');
  assertError(r, 500, 'INFERENCE_FAILED');
  assert.ok(r.headers.get('x-service-host-name'));
  assertError(await chat('[[fail_mid]]'), 500, 'INFERENCE_FAILED');
  // An upstream nothing listens on is found by the engine check at start: 503 naming the problem (e2e/api/engine-health.test.ts).
  const unreachable = await post(h, '/chat/completions', key, { model: 'tiny-queue', messages: [{ role: 'user', content: 'x' }] });
  assertError(unreachable, 503, 'ENGINE_DOWN');
  await h.svc.ledger.drain();
  const after = await h.svc.store.get<any>('SELECT usd, usd_held FROM accounts WHERE id = $1', [accountId]);
  assert.equal(Number(after.usd), Number(before.usd));
  assert.equal(Number(after.usd_held), 0);
});

test('503 when the model is at capacity (upstream 503, or our queue is full)', async () => {
  assertError(await chat('[[status:503]]'), 503, 'MODEL_AT_CAPACITY');
  // one-slot admits one request and queues none: while one runs, the next is refused at once.
  const h2 = await startHarness({
    models: (url) => [scriptedModel('one-slot', url, { engine: { kind: 'openai', baseUrl: url, model: 'scripted', maxConcurrency: 1, maxQueue: 0 } })],
  });
  try {
    const k = (await h2.newAccount()).key;
    const first = post(h2, '/chat/completions', k, { model: 'one-slot', messages: [{ role: 'user', content: '[[delay:400]]' }] });
    await new Promise((r) => setTimeout(r, 100));
    const second = await post(h2, '/chat/completions', k, { model: 'one-slot', messages: [{ role: 'user', content: 'x' }] });
    assertError(second, 503, 'MODEL_AT_CAPACITY');
    assert.equal((await first).status, 200);
  } finally {
    await h2.close();
  }
});

test('504 when the engine does not answer in time; the message advises streaming', async () => {
  const r = await chat('[[hang]]');
  assertError(r, 504, 'REQUEST_TIMEOUT');
  assert.match(r.json.error, /stream: true/);
});

test('400 passes the engine’s own rejection through; context overflow has its own code', async () => {
  const bad = await chat('[[status:400]]');
  assertError(bad, 400, 'INVALID_REQUEST');
  assert.match(bad.json.error, /scripted bad request/);
  const ctx = await chat('[[context]]');
  assertError(ctx, 400, 'CONTEXT_LENGTH_EXCEEDED');
  assert.equal(ctx.json.param, 'messages');
});

test('413 for a body over the size limit', async () => {
  const r = await post(h, '/chat/completions', key, { model: 'scripted-model', messages: [{ role: 'user', content: 'x'.repeat(36 * 1024 * 1024) }] });
  assertError(r, 413, 'PAYLOAD_TOO_LARGE');
});
