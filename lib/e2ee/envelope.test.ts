// The envelope against fixed vectors: one built by hand here with WebCrypto (HKDF and AES-GCM, as the public
// community client does) opens with the worker's code, and the worker's seal with the same keys and nonce is the
// same bytes; a sealed delta opens with the client's key; keys off the curve and altered fields are refused.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { EnvelopeError, looksSealed, MIN_ENVELOPE_HEX, newKeyPair, open, parsePublicKey, seal } from './envelope.ts';

const CLIENT = new Uint8Array(32).fill(0x11);
const WORKER = new Uint8Array(32).fill(0x22);
const NONCE = Buffer.alloc(12, 0x33);
// Built by the WebCrypto code below for "Hello, Lagoon" from CLIENT to WORKER with NONCE, and pinned here.
const VECTOR =
  '044f355bdcb7cc0af728ef3cceb9615d90684bb5b2ca5f859ab0f0b704075871aa385b6b1b8ead809ca67454d9683fcf2ba03456d6fe2c4abe2b07f0fbdbb2f1c1' +
  '333333333333333333333333' +
  '71a8b9bedd2f4dd59617da84543d3977b4af3f04ccd4ea0e68f261fef4';

async function byHand(sender: Uint8Array, recipientPub: Uint8Array, nonce: Uint8Array, text: string): Promise<string> {
  const x = new Uint8Array(secp256k1.getSharedSecret(sender, recipientPub, false).slice(1, 33));
  const base = await crypto.subtle.importKey('raw', x, 'HKDF', false, ['deriveKey']);
  const info = new TextEncoder().encode('ecdsa_encryption');
  const key = await crypto.subtle.deriveKey({ name: 'HKDF', hash: 'SHA-256', salt: new Uint8Array(0), info }, base, { name: 'AES-GCM', length: 256 }, false, [
    'encrypt',
  ]);
  const ct = new Uint8Array(await crypto.subtle.encrypt({ name: 'AES-GCM', iv: new Uint8Array(nonce) }, key, new TextEncoder().encode(text)));
  return Buffer.concat([secp256k1.getPublicKey(sender, false), nonce, ct]).toString('hex');
}

test('a field sealed by hand (WebCrypto) is the pinned vector and opens with the worker key', async () => {
  const hand = await byHand(CLIENT, secp256k1.getPublicKey(WORKER, false), NONCE, 'Hello, Lagoon');
  assert.equal(hand, VECTOR);
  assert.equal(open(WORKER, VECTOR), 'Hello, Lagoon');
});

test("the worker's seal with the same keys and nonce is byte for byte the same", () => {
  const sender = { secretKey: CLIENT, publicKey: secp256k1.getPublicKey(CLIENT, false) };
  assert.equal(seal(secp256k1.getPublicKey(WORKER, false), 'Hello, Lagoon', sender, NONCE), VECTOR);
});

test('a delta sealed by the worker with a fresh key opens with the client key, by hand', async () => {
  const client = newKeyPair();
  const sealed = seal(client.publicKey, 'délta ✓');
  assert.ok(looksSealed(sealed));
  assert.equal(sealed.length, MIN_ENVELOPE_HEX + Buffer.byteLength('délta ✓') * 2);
  // Opened the way a browser does: WebCrypto with the sender key read from the envelope.
  const raw = Buffer.from(sealed, 'hex');
  const x = new Uint8Array(secp256k1.getSharedSecret(client.secretKey, raw.subarray(0, 65), false).slice(1, 33));
  const base = await crypto.subtle.importKey('raw', x, 'HKDF', false, ['deriveKey']);
  const info = new TextEncoder().encode('ecdsa_encryption');
  const key = await crypto.subtle.deriveKey({ name: 'HKDF', hash: 'SHA-256', salt: new Uint8Array(0), info }, base, { name: 'AES-GCM', length: 256 }, false, [
    'decrypt',
  ]);
  const text = new TextDecoder().decode(
    await crypto.subtle.decrypt({ name: 'AES-GCM', iv: new Uint8Array(raw.subarray(65, 77)) }, key, new Uint8Array(raw.subarray(77))),
  );
  assert.equal(text, 'délta ✓');
  // Two seals of one text differ (fresh key and nonce each time).
  assert.notEqual(seal(client.publicKey, 'same'), seal(client.publicKey, 'same'));
});

test('refused: plain text, an altered byte, another key, a sender key off the curve', () => {
  assert.throws(() => open(WORKER, 'hello'), EnvelopeError);
  const altered = VECTOR.slice(0, -2) + (VECTOR.endsWith('f4') ? '00' : 'f4');
  assert.throws(() => open(WORKER, altered), /does not decrypt/);
  assert.throws(() => open(newKeyPair().secretKey, VECTOR), /does not decrypt/);
  const offCurve = `04${'00'.repeat(64)}${VECTOR.slice(130)}`;
  assert.throws(() => open(WORKER, offCurve), /not a point/);
});

test('public keys from headers: 130 hex of an uncompressed point, or nothing', () => {
  const k = Buffer.from(newKeyPair().publicKey).toString('hex');
  assert.ok(parsePublicKey(k));
  assert.ok(parsePublicKey(k.toUpperCase().replace(/^04/, '04')));
  assert.equal(parsePublicKey(k.slice(2)), null);
  assert.equal(parsePublicKey(`05${k.slice(2)}`), null);
  assert.equal(parsePublicKey(`04${'00'.repeat(64)}`), null);
  assert.equal(parsePublicKey('04zz'), null);
});
