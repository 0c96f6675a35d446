// REPORTDATA in the public layout (address ‖ 12 zero bytes ‖ nonce), what an attestation without a quote provider
// says (verified false, provider none, no quote), and that a provider's evidence is passed through with its name.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { recoverMessageAddress } from 'viem';
import { newKeyPair } from './envelope.ts';
import { attestationBody, keyProofText, type QuoteProvider, reportData } from './attestation.ts';
import { addressOf } from './signing.ts';

const NONCE = 'ab'.repeat(32);

test('REPORTDATA: the signing address, 12 zero bytes, then the nonce', () => {
  const address = '0x1111111111111111111111111111111111111111';
  const rd = reportData(address, Buffer.from(NONCE, 'hex'));
  assert.equal(rd.length, 64);
  assert.equal(Buffer.from(rd.subarray(0, 20)).toString('hex'), '11'.repeat(20));
  assert.ok(rd.subarray(20, 32).every((b) => b === 0));
  assert.equal(Buffer.from(rd.subarray(32)).toString('hex'), NONCE);
});

test('without a quote provider: verified false, provider none, no quote, and a signed nonce', async () => {
  const key = newKeyPair();
  const body = await attestationBody(key, 'm', NONCE.toUpperCase(), undefined);
  assert.equal(body.verified, false);
  assert.equal(body.tee_provider, 'none');
  assert.equal(body.intel_quote, null);
  assert.equal(body.nvidia_payload, null);
  assert.equal(body.nonce, NONCE);
  assert.equal(body.signing_address, addressOf(key.publicKey));
  const signer = await recoverMessageAddress({ message: keyProofText(NONCE, 'm'), signature: body.key_proof as `0x${string}` });
  assert.equal(signer, body.signing_address);
});

test('a quote provider gets REPORTDATA for this key and nonce; its evidence and name are passed through, still unverified here', async () => {
  const key = newKeyPair();
  let seen: Uint8Array | undefined;
  const provider: QuoteProvider = {
    name: 'test-tdx',
    async evidence(rd) {
      seen = rd;
      return { intel_quote: 'beef', nvidia_payload: null };
    },
  };
  const body = await attestationBody(key, 'm', NONCE, provider);
  assert.equal(body.tee_provider, 'test-tdx');
  assert.equal(body.intel_quote, 'beef');
  assert.equal(body.verified, false);
  assert.deepEqual(seen, reportData(addressOf(key.publicKey), Buffer.from(NONCE, 'hex')));
});

test('a key whose scalar starts with a zero byte is kept at 32 bytes and signs (one key in 256)', async () => {
  let key = newKeyPair();
  for (let i = 0; i < 5000 && key.secretKey[0] !== 0; i++) key = newKeyPair();
  assert.equal(key.secretKey[0], 0, 'a key with a leading zero byte turned up');
  assert.equal(key.secretKey.length, 32);
  const body = await attestationBody(key, 'm', NONCE, undefined);
  const signer = await recoverMessageAddress({ message: keyProofText(NONCE, 'm'), signature: body.key_proof as `0x${string}` });
  assert.equal(signer, addressOf(key.publicKey));
});
