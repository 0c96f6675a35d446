// The page's two keys for private chats, both made and used only here:
// - the vault key, derived from the user's passphrase (PBKDF2-SHA256, 600,000 rounds) with the salt the server keeps:
//   every title and message is sealed with it (AES-256-GCM) before it is stored, so history syncs across devices
//   while the server holds only ciphertext;
// - a session key pair (secp256k1) for the E2EE protocol: messages are sealed to the worker's attested key, and its
//   answer's deltas come back sealed to this key (ECDH → HKDF-SHA256 `ecdsa_encryption` → AES-256-GCM).
import { secp256k1 } from '@noble/curves/secp256k1.js';

const PBKDF2_ROUNDS = 600_000;
/** Sealed with the vault key when the vault is made: opening it proves the passphrase. */
export const CHECK_TEXT = 'lagoon private chats v1';

const b64 = (bytes: Uint8Array): string => btoa(String.fromCharCode(...bytes));
const unb64 = (text: string): Uint8Array<ArrayBuffer> => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
const hex = (bytes: Uint8Array): string => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
const unhex = (text: string): Uint8Array<ArrayBuffer> => Uint8Array.from(text.match(/../g) ?? [], (h) => Number.parseInt(h, 16));

export const newSalt = (): string => b64(crypto.getRandomValues(new Uint8Array(16)));

export async function vaultKey(passphrase: string, salt: string): Promise<CryptoKey> {
  const base = await crypto.subtle.importKey('raw', new TextEncoder().encode(passphrase), 'PBKDF2', false, ['deriveKey']);
  return crypto.subtle.deriveKey(
    { name: 'PBKDF2', hash: 'SHA-256', salt: unb64(salt), iterations: PBKDF2_ROUNDS },
    base,
    { name: 'AES-GCM', length: 256 },
    false,
    ['encrypt', 'decrypt'],
  );
}

/** `v1.` + base64 of nonce ‖ ciphertext ‖ tag. */
export async function sealText(key: CryptoKey, text: string): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const ct = new Uint8Array(await crypto.subtle.encrypt({ name: 'AES-GCM', iv }, key, new TextEncoder().encode(text)));
  const out = new Uint8Array(12 + ct.length);
  out.set(iv);
  out.set(ct, 12);
  return `v1.${b64(out)}`;
}

/** Opens a sealed text; rejects when the key is not the one it was sealed with. */
export async function openText(key: CryptoKey, sealed: string): Promise<string> {
  if (!sealed.startsWith('v1.')) throw new Error('not a sealed text');
  const raw = unb64(sealed.slice(3));
  return new TextDecoder().decode(await crypto.subtle.decrypt({ name: 'AES-GCM', iv: raw.slice(0, 12) }, key, raw.slice(12)));
}

export interface SessionKey {
  secret: Uint8Array;
  publicHex: string;
}

export function newSessionKey(): SessionKey {
  const secret = secp256k1.utils.randomSecretKey();
  return { secret, publicHex: hex(secp256k1.getPublicKey(secret, false)) };
}

async function protocolKey(secret: Uint8Array, peer: Uint8Array, use: KeyUsage): Promise<CryptoKey> {
  const x = new Uint8Array(secp256k1.getSharedSecret(secret, peer, false).slice(1, 33));
  const base = await crypto.subtle.importKey('raw', x, 'HKDF', false, ['deriveKey']);
  x.fill(0);
  const info = new TextEncoder().encode('ecdsa_encryption');
  return crypto.subtle.deriveKey({ name: 'HKDF', hash: 'SHA-256', salt: new Uint8Array(0), info }, base, { name: 'AES-GCM', length: 256 }, false, [use]);
}

/** Seals `text` to the worker's key (hex of our public key ‖ nonce ‖ ciphertext ‖ tag). */
export async function sealTo(workerKeyHex: string, session: SessionKey, text: string): Promise<string> {
  const key = await protocolKey(session.secret, unhex(workerKeyHex), 'encrypt');
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const ct = new Uint8Array(await crypto.subtle.encrypt({ name: 'AES-GCM', iv }, key, new TextEncoder().encode(text)));
  return hex(unhex(session.publicHex)) + hex(iv) + hex(ct);
}

/** Opens a delta the worker sealed to the session key. */
export async function openDelta(session: SessionKey, sealedHex: string): Promise<string> {
  const raw = unhex(sealedHex);
  const key = await protocolKey(session.secret, raw.slice(0, 65), 'decrypt');
  return new TextDecoder().decode(await crypto.subtle.decrypt({ name: 'AES-GCM', iv: raw.slice(65, 77) }, key, raw.slice(77)));
}
