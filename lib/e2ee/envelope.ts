// The public E2EE protocol's envelope, one per encrypted field: hex of sender-pub(65) ‖ nonce(12) ‖ AES-256-GCM
// ciphertext ‖ tag(16). The key is HKDF-SHA256 (no salt, info `ecdsa_encryption`) of the x-coordinate of the
// secp256k1 ECDH point between the sender's key and the recipient's. A client seals with one key for all its fields
// (the community client) or a fresh one each (the public CLI); the worker seals every delta with a fresh key.
// Reference: ../shared/reference/e2ee.md §1 "Envelope".
import { createCipheriv, createDecipheriv, createECDH, hkdfSync, randomBytes } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1.js';

const PUB_BYTES = 65;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const INFO = Buffer.from('ecdsa_encryption');
/** The shortest envelope: a key, a nonce and a tag around an empty text (186 hex characters). */
export const MIN_ENVELOPE_HEX = (PUB_BYTES + NONCE_BYTES + TAG_BYTES) * 2;

const HEX = /^[0-9a-fA-F]*$/;

/** Why a field could not be opened; the caller words it for its client. */
export class EnvelopeError extends Error {}

export interface KeyPair {
  secretKey: Uint8Array;
  /** Uncompressed (65 bytes, 0x04 first). */
  publicKey: Uint8Array;
}

// Key generation and ECDH run in OpenSSL (node:crypto): a fresh key per sealed delta costs about a twentieth of the
// pure-JS curve's time. noble checks points only (no scalar multiplication).
export function newKeyPair(): KeyPair {
  const ecdh = createECDH('secp256k1');
  const publicKey = new Uint8Array(ecdh.generateKeys());
  // getPrivateKey() drops leading zero bytes (one key in 256 comes back 31 bytes long, which signing refuses): the
  // scalar is put back at its full 32 bytes.
  const raw = ecdh.getPrivateKey();
  const secretKey = new Uint8Array(32);
  secretKey.set(raw, 32 - raw.length);
  return { secretKey, publicKey };
}

/** A public key as the headers carry it: 130 hex characters of an uncompressed point on the curve. */
export function parsePublicKey(hex: string): Uint8Array | null {
  if (hex.length !== PUB_BYTES * 2 || !HEX.test(hex) || !hex.toLowerCase().startsWith('04')) return null;
  const bytes = Buffer.from(hex, 'hex');
  return secp256k1.utils.isValidPublicKey(bytes, false) ? new Uint8Array(bytes) : null;
}

/** Whether a field looks like an envelope (the shape only: opening it is the proof). */
export const looksSealed = (text: string): boolean => text.length >= MIN_ENVELOPE_HEX && text.length % 2 === 0 && HEX.test(text) && text.startsWith('04');

function aesKey(secretKey: Uint8Array, peer: Uint8Array): Buffer {
  const ecdh = createECDH('secp256k1');
  ecdh.setPrivateKey(secretKey);
  // OpenSSL's ECDH secret is the shared point's x-coordinate: what the protocol feeds HKDF.
  const x = ecdh.computeSecret(peer);
  try {
    return Buffer.from(hkdfSync('sha256', x, Buffer.alloc(0), INFO, 32));
  } finally {
    x.fill(0);
  }
}

/** Seals `text` to `recipient` with a fresh sender key (`sender` fixes it, for test vectors). */
export function seal(recipient: Uint8Array, text: string, sender: KeyPair = newKeyPair(), nonce: Buffer = randomBytes(NONCE_BYTES)): string {
  const key = aesKey(sender.secretKey, recipient);
  const cipher = createCipheriv('aes-256-gcm', key, nonce);
  const body = Buffer.concat([cipher.update(text, 'utf8'), cipher.final(), cipher.getAuthTag()]);
  key.fill(0);
  return Buffer.concat([sender.publicKey, nonce, body]).toString('hex');
}

/**
 * Opens an envelope sealed to the holder of `secretKey`; throws EnvelopeError when it is not one or does not open.
 * `keys` keeps the derived key per sender for one request: a client that seals every field with one key costs one
 * ECDH, not one per field.
 */
export function open(secretKey: Uint8Array, hex: string, keys?: Map<string, Buffer>): string {
  if (!looksSealed(hex)) throw new EnvelopeError('not an encrypted field (hex of key ‖ nonce ‖ ciphertext)');
  const raw = Buffer.from(hex, 'hex');
  const sender = raw.subarray(0, PUB_BYTES);
  if (!secp256k1.utils.isValidPublicKey(sender, false)) throw new EnvelopeError("the field's sender key is not a point on secp256k1");
  const nonce = raw.subarray(PUB_BYTES, PUB_BYTES + NONCE_BYTES);
  const body = raw.subarray(PUB_BYTES + NONCE_BYTES);
  const senderHex = hex.slice(0, PUB_BYTES * 2).toLowerCase();
  const key = keys?.get(senderHex) ?? aesKey(secretKey, sender);
  keys?.set(senderHex, key);
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, nonce);
    decipher.setAuthTag(body.subarray(body.length - TAG_BYTES));
    const text = Buffer.concat([decipher.update(body.subarray(0, body.length - TAG_BYTES)), decipher.final()]);
    return new TextDecoder('utf-8', { fatal: true }).decode(text);
  } catch {
    throw new EnvelopeError('the field does not decrypt with this key (sealed to another key, or altered)');
  } finally {
    if (!keys) key.fill(0);
  }
}

/** Wipes the keys a request's `open` calls kept. */
export function forgetKeys(keys: Map<string, Buffer>): void {
  for (const k of keys.values()) k.fill(0);
  keys.clear();
}
