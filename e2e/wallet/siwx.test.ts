// Sign-In-With-X on the running server: EVM wallets (EOA, ERC-1271, ERC-6492) and Solana wallets sign in on
// /chat/completions, in the x402 form and the legacy form; every security vector is refused with the right status.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { encodeFunctionData, type Hex, hexToBigInt, parseSignature, serializeErc6492Signature, serializeSignature, toHex } from 'viem';
import { createSIWxMessage } from '@x402/extensions/sign-in-with-x';
import { grantUsd } from '../../lib/billing/ledger.ts';
import { ensureWallet } from '../../lib/wallet/wallets.ts';
import { formatSignInMessage } from '../../lib/wallet/siwx-message.ts';
import { type Anvil, CONTRACTS, startAnvil } from '../support/chains/anvil.ts';
import { type Harness, startHarness } from '../support/harness.ts';
import {
  challenge,
  editHeader,
  evmWallet,
  legacyEvmHeader,
  legacySolanaHeader,
  PUBLIC_URL,
  signInHeader,
  solanaWallet,
  walletChat,
  walletEnv,
} from './clients.ts';

let anvil: Anvil;
let h: Harness;
before(async () => {
  anvil = await startAnvil();
  h = await startHarness({ env: walletEnv({ anvil }) });
});
after(async () => {
  await h?.close();
  await anvil?.close();
});

/** Gives a wallet credit directly (these tests are about signing in, not about paying). */
async function fund(namespace: 'eip155' | 'solana', address: string, usd = 1) {
  const w = await ensureWallet(h.svc.store, namespace, address);
  await grantUsd(h.svc.store, w.accountId, usd * 1_000_000);
  return w;
}

const assertCode = (r: { status: number; json: any }, status: number, code: string) => {
  assert.equal(r.status, status, JSON.stringify(r.json));
  assert.equal(r.json.code, code);
};

test('an EVM wallet signs in with the x402 form and its own balance pays for the chat', async () => {
  const account = evmWallet();
  const w = await fund('eip155', account.address);
  const r = await walletChat(h, await signInHeader(h, account));
  assert.equal(r.status, 200, r.text);
  const cost = r.json.cost.usd;
  assert.ok(cost > 0);
  assert.equal(r.headers.get('x-balance-remaining'), (1 - cost).toFixed(6));
  await h.svc.ledger.drain();
  const rows = await h.svc.store.all<any>('SELECT key_id, usd FROM usage WHERE account_id = $1', [w.accountId]);
  assert.deepEqual(
    rows.map((x) => [x.key_id, Number(x.usd)]),
    [[w.keyId, Math.round(cost * 1e6)]],
  );
});

test('a Solana wallet signs in with the x402 form (Ed25519, base58)', async () => {
  const signer = await solanaWallet();
  await fund('solana', signer.address);
  const r = await walletChat(h, await signInHeader(h, signer));
  assert.equal(r.status, 200, r.text);
  assert.ok(r.headers.get('x-balance-remaining'));
});

test('the legacy payload form: EIP-4361 text from viem, client nonce, X-Sign-In-With-X; each header works once', async () => {
  const account = evmWallet();
  await fund('eip155', account.address);
  const header = await legacyEvmHeader(account);
  assert.equal((await walletChat(h, header, {}, 'X-Sign-In-With-X')).status, 200);
  assertCode(await walletChat(h, header, {}, 'X-Sign-In-With-X'), 401, 'X402_SIGN_IN_NONCE_REUSED');
});

test('the legacy form from Solana, with the signature in base64', async () => {
  const seed = crypto.getRandomValues(new Uint8Array(32));
  const issuedAt = new Date().toISOString();
  const header = await legacySolanaHeader(seed, (address) =>
    formatSignInMessage('solana', {
      domain: 'lagoon.test',
      address,
      uri: PUBLIC_URL,
      version: '1',
      chainReference: '5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
      nonce: 'legacy12345678',
      issuedAt,
      statement: 'Sign in',
    }),
  );
  const address = JSON.parse(Buffer.from(header, 'base64').toString()).address;
  await fund('solana', address);
  assert.equal((await walletChat(h, header)).status, 200);
  // Wallet-built texts may name the cluster ("mainnet") rather than its genesis hash.
  const named = await legacySolanaHeader(seed, (a) =>
    formatSignInMessage('solana', {
      domain: 'lagoon.test',
      address: a,
      uri: PUBLIC_URL,
      version: '1',
      chainReference: 'mainnet',
      nonce: 'legacy87654321',
      issuedAt,
    }),
  );
  assert.equal(
    (
      await walletChat(
        h,
        editHeader(named, (p) => delete p.chainId),
      )
    ).status,
    200,
  );
});

test('a replayed header is refused, in sequence and concurrently (nonce single use)', async () => {
  const account = evmWallet();
  await fund('eip155', account.address);
  const header = await signInHeader(h, account);
  assert.equal((await walletChat(h, header)).status, 200);
  assertCode(await walletChat(h, header), 401, 'X402_SIGN_IN_NONCE_REUSED');
  const fresh = await signInHeader(h, account);
  const both = await Promise.all([walletChat(h, fresh), walletChat(h, fresh)]);
  assert.deepEqual(both.map((r) => r.status).sort(), [200, 401]);
});

test('the high-s twin of a signature is a valid signature, but not a second use of the nonce', async () => {
  const account = evmWallet();
  await fund('eip155', account.address);
  const header = await signInHeader(h, account);
  const twin = editHeader(header, (p) => {
    const { r, s, yParity } = parseSignature(p.signature as Hex);
    const n = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
    p.signature = serializeSignature({ r, s: toHex(n - hexToBigInt(s), { size: 32 }), yParity: 1 - yParity });
  });
  assert.notEqual(twin, header);
  assert.equal((await walletChat(h, header)).status, 200);
  assertCode(await walletChat(h, twin), 401, 'X402_SIGN_IN_NONCE_REUSED');
});

test('tampered fields, another domain, an unknown nonce, an old message → 401', async () => {
  const account = evmWallet();
  await fund('eip155', account.address);
  const header = await signInHeader(h, account);
  assertCode(
    await walletChat(
      h,
      editHeader(header, (p) => (p.statement = 'Send all my credit')),
    ),
    401,
    'X402_SIGN_IN_INVALID_SIGNATURE',
  );
  assertCode(
    await walletChat(
      h,
      editHeader(header, (p) => (p.address = evmWallet().address)),
    ),
    401,
    'X402_SIGN_IN_INVALID_SIGNATURE',
  );
  assertCode(
    await walletChat(
      h,
      editHeader(header, (p) => (p.expirationTime = new Date(Date.now() + 86_400_000).toISOString())),
    ),
    401,
    'X402_SIGN_IN_INVALID_SIGNATURE',
  );
  // The tampering above never consumed the nonce: the untouched header still works once.
  assert.equal((await walletChat(h, header)).status, 200);

  const evil = await signInHeader(h, account, (i) => ({ ...i, domain: 'evil.example', uri: 'https://evil.example/api/v1' }));
  assertCode(await walletChat(h, evil), 401, 'X402_SIGN_IN_DOMAIN_MISMATCH');
  const otherUri = await signInHeader(h, account, (i) => ({ ...i, uri: 'https://evil.example/api/v1' }), { sdk: false });
  assertCode(await walletChat(h, otherUri), 401, 'X402_SIGN_IN_DOMAIN_MISMATCH');
  const ownNonce = await signInHeader(h, account, (i) => ({ ...i, nonce: 'c0ffeec0ffeec0ffeec0ffeec0ffee00' }));
  assertCode(await walletChat(h, ownNonce), 401, 'X402_SIGN_IN_INVALID_NONCE');
  const old = await signInHeader(h, account, (i) => ({ ...i, issuedAt: new Date(Date.now() - 600_000).toISOString(), expirationTime: undefined }));
  assertCode(await walletChat(h, old), 401, 'X402_SIGN_IN_EXPIRED');
  const expired = await signInHeader(h, account, (i) => ({ ...i, expirationTime: new Date(Date.now() - 1000).toISOString() }));
  assertCode(await walletChat(h, expired), 401, 'X402_SIGN_IN_EXPIRED');
  const future = await signInHeader(h, account, (i) => ({ ...i, issuedAt: new Date(Date.now() + 120_000).toISOString() }));
  assertCode(await walletChat(h, future), 401, 'X402_SIGN_IN_FUTURE_TIMESTAMP');
  const otherChain = editHeader(await signInHeader(h, account), (p) => (p.chainId = 'eip155:1'));
  assertCode(await walletChat(h, otherChain), 401, 'X402_SIGN_IN_UNSUPPORTED_CHAIN');
  const legacyOtherDomain = await legacyEvmHeader(account, { domain: 'evil.example' });
  assertCode(await walletChat(h, legacyOtherDomain), 401, 'X402_SIGN_IN_DOMAIN_MISMATCH');
});

test('the Ed25519 small-order forgery (accepted by lenient verifiers) is refused', async () => {
  const info = await challenge(h);
  const forged = { ...info, chainId: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp', type: 'ed25519', address: '4uQeVj5tqViQh7yWWGStvkEG1Zmhx6uasJtWCJziofM' };
  const sig = new Uint8Array(64);
  sig[0] = 1; // R = the identity point, S = 0
  const { encodeBase58 } = await import('@x402/extensions/sign-in-with-x');
  const header = Buffer.from(JSON.stringify({ ...forged, signature: encodeBase58(sig) })).toString('base64');
  const r = await walletChat(h, header);
  assert.equal(r.status, 401);
  assert.ok(['X402_SIGN_IN_INVALID_PAYLOAD', 'X402_SIGN_IN_INVALID_SIGNATURE'].includes(r.json.code), r.json.code);
  const wallets = await h.svc.store.all('SELECT id FROM wallets WHERE address = $1', [forged.address]);
  assert.equal(wallets.length, 0);
});

test('malformed headers are 400 (not 500); well-formed JSON with bad fields is 401', async () => {
  for (const bad of ['%%%not-base64%%%', 'bm90IGpzb24=', Buffer.from('[1,2]').toString('base64'), 'YQ']) {
    assertCode(await walletChat(h, bad), 400, 'X402_SIGN_IN_MALFORMED');
  }
  assertCode(await walletChat(h, Buffer.from(JSON.stringify({ address: 'x' })).toString('base64')), 401, 'X402_SIGN_IN_INVALID_PAYLOAD');
  const short = editHeader(await signInHeader(h, evmWallet()), (p) => (p.nonce = 'abc'));
  assertCode(await walletChat(h, short), 401, 'X402_SIGN_IN_INVALID_PAYLOAD');
  assertCode(
    await walletChat(h, Buffer.from(JSON.stringify({ address: '0x1', message: 'hello', signature: '0x' })).toString('base64')),
    401,
    'X402_SIGN_IN_INVALID_MESSAGE',
  );
});

test('smart wallets sign in: ERC-1271 (deployed) and ERC-6492 (not yet deployed), verified through the Base RPC', async () => {
  const owner = evmWallet();
  const deployed = await anvil.deploy('TestWallet', [owner.address]);
  await fund('eip155', deployed);
  const scw = { address: deployed, signMessage: ({ message }: { message: string }) => owner.signMessage({ message }) };
  const scwRes = await walletChat(h, await signInHeader(h, scw));
  assert.equal(scwRes.status, 200, scwRes.text);
  // An ERC-1271 signature by someone else's key is refused.
  const stranger = evmWallet();
  const forged = { address: deployed, signMessage: ({ message }: { message: string }) => stranger.signMessage({ message }) };
  assertCode(await walletChat(h, await signInHeader(h, forged)), 401, 'X402_SIGN_IN_INVALID_SIGNATURE');

  const factory = await anvil.deploy('TestWalletFactory');
  const salt = `0x${'22'.repeat(32)}` as Hex;
  const predicted = (await anvil.publicClient.readContract({
    address: factory,
    abi: CONTRACTS.TestWalletFactory.abi,
    functionName: 'predict',
    args: [owner.address, salt],
  })) as Hex;
  assert.equal(await anvil.publicClient.getCode({ address: predicted }), undefined);
  await fund('eip155', predicted);
  const counterfactual = {
    address: predicted,
    signMessage: async ({ message }: { message: string }) =>
      serializeErc6492Signature({
        address: factory,
        data: encodeFunctionData({ abi: CONTRACTS.TestWalletFactory.abi, functionName: 'deploy', args: [owner.address, salt] }),
        signature: await owner.signMessage({ message }),
      }),
  };
  assert.equal((await walletChat(h, await signInHeader(h, counterfactual))).status, 200);
});

test('SIWX wins over a bearer key sent alongside it', async () => {
  const { key, accountId } = await h.newAccount({ usd: 1 });
  const account = evmWallet();
  const w = await fund('eip155', account.address);
  const r = await walletChat(h, await signInHeader(h, account), {}, 'SIGN-IN-WITH-X');
  assert.equal(r.status, 200);
  const both = await fetch(`${h.base}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, 'sign-in-with-x': await signInHeader(h, account) },
    body: JSON.stringify({ model: 'scripted-model', messages: [{ role: 'user', content: 'hi' }] }),
  });
  assert.equal(both.status, 200);
  assert.ok(both.headers.get('x-balance-remaining'));
  await h.svc.ledger.drain();
  assert.equal((await h.svc.store.all('SELECT 1 FROM usage WHERE account_id = $1', [accountId])).length, 0);
  assert.equal((await h.svc.store.all('SELECT 1 FROM usage WHERE account_id = $1', [w.accountId])).length, 2);
});

test('the SDK message for the challenge is the one the server rebuilds (one text, both sides)', async () => {
  const info = await challenge(h);
  const account = evmWallet();
  const text = createSIWxMessage({ ...info, chainId: 'eip155:8453', type: 'eip191' }, account.address);
  assert.match(text, /^lagoon\.test wants you to sign in with your Ethereum account:/);
  assert.match(text, new RegExp(`Nonce: ${info.nonce}`));
});
