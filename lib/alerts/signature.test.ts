// Webhook signatures: Standard Webhooks' layout, checked against a known vector; a changed body, id or secret fails;
// a timestamp outside the five-minute window fails (a replay); several signatures (a rotation) are accepted.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { test } from 'node:test';
import { newWebhookSecret, signWebhook, verifyWebhook, webhookHeaders } from './signature.ts';

test('the signature is base64 HMAC-SHA256 over id.timestamp.body under the key after whsec_', () => {
  // The example of the Standard Webhooks specification.
  const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
  const sig = signWebhook(secret, 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}');
  assert.equal(sig, 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  const s = newWebhookSecret();
  assert.match(s, /^whsec_[A-Za-z0-9+/]{43}=$/);
  assert.equal(Buffer.from(s.slice(6), 'base64').length, 32);
});

test('verify: good, tampered, wrong secret, outside the replay window, rotation', () => {
  const secret = newWebhookSecret();
  const now = Date.UTC(2030, 0, 1);
  const body = JSON.stringify({ id: 'evt_1', type: 'balance.low' });
  const h = webhookHeaders(secret, 'evt_1', body, now);
  const headers = { id: h['webhook-id'], timestamp: h['webhook-timestamp'], signature: h['webhook-signature'] };
  assert.deepEqual(verifyWebhook(secret, headers, body, { now }), { ok: true });
  assert.deepEqual(verifyWebhook(secret, headers, `${body} `, { now }), { ok: false, reason: 'bad signature' });
  assert.deepEqual(verifyWebhook(secret, { ...headers, id: 'evt_2' }, body, { now }), { ok: false, reason: 'bad signature' });
  assert.deepEqual(verifyWebhook(newWebhookSecret(), headers, body, { now }), { ok: false, reason: 'bad signature' });
  // Replayed six minutes later, or sent with a timestamp from the future: refused.
  assert.deepEqual(verifyWebhook(secret, headers, body, { now: now + 6 * 60_000 }), { ok: false, reason: 'timestamp outside the window' });
  assert.deepEqual(verifyWebhook(secret, headers, body, { now: now - 6 * 60_000 }), { ok: false, reason: 'timestamp outside the window' });
  assert.deepEqual(verifyWebhook(secret, headers, body, { now: now + 4 * 60_000 }), { ok: true });
  // A re-signed timestamp does not match the old signature.
  assert.equal(verifyWebhook(secret, { ...headers, timestamp: String(Number(headers.timestamp) + 1) }, body, { now }).ok, false);
  assert.deepEqual(verifyWebhook(secret, { ...headers, signature: undefined }, body, { now }), { ok: false, reason: 'missing headers' });
  // Several signatures, space-separated: one matching is enough.
  const other = `v1,${crypto.randomBytes(32).toString('base64')}`;
  assert.deepEqual(verifyWebhook(secret, { ...headers, signature: `${other} ${headers.signature}` }, body, { now }), { ok: true });
});
