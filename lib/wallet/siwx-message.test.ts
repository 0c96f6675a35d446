// The sign-in text must match what the published x402 SIWX client signs, byte for byte, and parsing must give back
// exactly the fields that were formatted.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createSIWxMessage } from '@x402/extensions/sign-in-with-x';
import { formatSignInMessage, parseSignInMessage, type SignInFields } from './siwx-message.ts';

const EVM_ADDRESS = '0x3Ad8B7D8e6f2f1aC0a8b5e0C2A7D54d1A08b0E4f';
const SOL_ADDRESS = 'HbUE3ciXDdJES4723wYU3uR2uoprwh8M4ictnGht3efp';
const SOL_REF = '5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp';

const base = {
  domain: 'lagoon.example:8443',
  uri: 'https://lagoon.example:8443/api/v1/chat/completions',
  version: '1',
  nonce: 'a1b2c3d4e5f67890a1b2c3d4e5f67890',
  issuedAt: '2026-01-02T03:04:05.678Z',
};
const variants: Partial<SignInFields>[] = [
  {},
  { statement: 'Sign in to Lagoon' },
  {
    statement: 'Sign in to Lagoon',
    expirationTime: '2026-01-02T03:09:05.678Z',
    notBefore: '2026-01-02T03:04:00.000Z',
    requestId: 'req-1',
    resources: ['https://lagoon.example:8443/a', 'https://lagoon.example:8443/b'],
  },
];

for (const [i, extra] of variants.entries()) {
  test(`EVM text ${i} equals the x402 SDK's and parses back`, () => {
    const fields: SignInFields = { ...base, ...extra, address: EVM_ADDRESS, chainReference: '8453' };
    const ours = formatSignInMessage('eip155', fields);
    const sdk = createSIWxMessage({ ...base, ...extra, chainId: 'eip155:8453', type: 'eip191' }, EVM_ADDRESS);
    assert.equal(ours, sdk);
    assert.deepEqual(parseSignInMessage(ours), { namespace: 'eip155', fields });
  });
  test(`Solana text ${i} equals the x402 SDK's and parses back`, () => {
    const fields: SignInFields = { ...base, ...extra, address: SOL_ADDRESS, chainReference: SOL_REF };
    const ours = formatSignInMessage('solana', fields);
    const sdk = createSIWxMessage({ ...base, ...extra, chainId: `solana:${SOL_REF}`, type: 'ed25519' }, SOL_ADDRESS);
    assert.equal(ours, sdk);
    assert.deepEqual(parseSignInMessage(ours), { namespace: 'solana', fields });
  });
}

test('texts with anything beyond the known lines are refused', () => {
  const text = formatSignInMessage('eip155', { ...base, statement: 'Hi', address: EVM_ADDRESS, chainReference: '8453' });
  assert.ok(parseSignInMessage(text));
  assert.equal(parseSignInMessage(`${text}\n`), undefined);
  assert.equal(parseSignInMessage(text.replace('\nNonce:', '\nExtra: x\nNonce:')), undefined);
  assert.equal(parseSignInMessage(text.replaceAll('\n', '\r\n')), undefined);
  assert.equal(parseSignInMessage(text.replace('Ethereum account', 'Bitcoin account')), undefined);
  assert.equal(parseSignInMessage('not a sign-in message'), undefined);
  assert.equal(parseSignInMessage(''), undefined);
});
