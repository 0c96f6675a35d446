// Signature checks for sign-in: the traps lenient verifiers fall into, kept as regression tests.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ed25519 } from '@noble/curves/ed25519.js';
import { base58 } from '@scure/base';
import nacl from 'tweetnacl';
import { hexToBigInt, parseSignature, serializeSignature, toHex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { solanaPublicKey, verifyEvmSignature, verifySolanaSignature } from './signatures.ts';

const text = 'lagoon.test wants you to sign in with your Solana account:';

test('the Ed25519 small-order forgery: tweetnacl accepts it, our check does not', () => {
  const pk = new Uint8Array(32);
  pk[0] = 1; // the identity point
  const sig = new Uint8Array(64);
  sig[0] = 1; // R = identity, S = 0
  const msg = new TextEncoder().encode('any message at all');
  assert.equal(nacl.sign.detached.verify(msg, sig, pk), true, 'the trap is real');
  const address = base58.encode(pk);
  assert.equal(address, '4uQeVj5tqViQh7yWWGStvkEG1Zmhx6uasJtWCJziofM');
  assert.equal(solanaPublicKey(address), undefined);
  assert.equal(verifySolanaSignature(address, 'any message at all', base58.encode(sig)), false);
});

test('Ed25519: a valid signature passes; a non-canonical S (S + L) and a wrong key do not', () => {
  const seed = ed25519.utils.randomSecretKey();
  const address = base58.encode(ed25519.getPublicKey(seed));
  const sig = ed25519.sign(new TextEncoder().encode(text), seed);
  assert.equal(verifySolanaSignature(address, text, base58.encode(sig)), true);
  assert.equal(verifySolanaSignature(address, `${text} `, base58.encode(sig)), false);
  // S + L encodes the same scalar; strict verification (RFC 8032) refuses it, ZIP-215 would not.
  const L = 2n ** 252n + 27742317777372353535851937790883648493n;
  let s = 0n;
  for (let i = 31; i >= 0; i--) s = (s << 8n) | BigInt(sig[32 + i]);
  const high = s + L;
  const malleated = sig.slice();
  for (let i = 0; i < 32; i++) malleated[32 + i] = Number((high >> BigInt(8 * i)) & 0xffn);
  assert.equal(verifySolanaSignature(address, text, base58.encode(malleated)), false);
  const other = base58.encode(ed25519.getPublicKey(ed25519.utils.randomSecretKey()));
  assert.equal(verifySolanaSignature(other, text, base58.encode(sig)), false);
});

test('Ed25519 signatures in base64 count only where the caller allows that encoding', () => {
  const seed = ed25519.utils.randomSecretKey();
  const address = base58.encode(ed25519.getPublicKey(seed));
  const b64 = Buffer.from(ed25519.sign(new TextEncoder().encode(text), seed)).toString('base64');
  assert.equal(verifySolanaSignature(address, text, b64), false);
  assert.equal(verifySolanaSignature(address, text, b64, ['base58', 'base64']), true);
});

test('EVM: an EOA signature verifies without any RPC; so does its high-s twin (why replay keys never use signatures)', async () => {
  const account = privateKeyToAccount(generatePrivateKey());
  const message = 'lagoon.test wants you to sign in with your Ethereum account:';
  const sig = await account.signMessage({ message });
  assert.equal(await verifyEvmSignature(account.address, message, sig, undefined), true);
  assert.equal(await verifyEvmSignature(account.address.toLowerCase(), message, sig, undefined), true);
  const { r, s, yParity } = parseSignature(sig);
  const n = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
  const twin = serializeSignature({ r, s: toHex(n - hexToBigInt(s), { size: 32 }), yParity: 1 - yParity });
  assert.notEqual(twin, sig);
  assert.equal(await verifyEvmSignature(account.address, message, twin, undefined), true);
  assert.equal(await verifyEvmSignature(privateKeyToAccount(generatePrivateKey()).address, message, sig, undefined), false);
  assert.equal(await verifyEvmSignature(account.address, message, 'not hex', undefined), false);
  // A smart-wallet signature cannot be checked without a Base RPC: refused, not thrown.
  assert.equal(await verifyEvmSignature(account.address, message, `0x${'ab'.repeat(200)}`, undefined), false);
});
