// Web3 API keys: GET /api_keys/generate_web3_key hands out a token, a wallet signs it (EIP-191 personal_sign with a
// real viem account, or Ed25519 for Solana) and POST turns the signature into an ordinary API key on the wallet's
// account. Tokens are single use and short-lived; every bad input is a 400 naming what is wrong. On SQLite with the
// spec's wire names and on PostgreSQL with the public API's.
import assert from 'node:assert/strict';
import { ed25519 } from '@noble/curves/ed25519.js';
import { base58 } from '@scure/base';
import { after, before, describe, test } from 'node:test';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { authenticate } from '../../lib/auth/keys.ts';
import { issueWeb3Token, WEB3_TOKEN_TTL_MS } from '../../lib/wallet/web3-key.ts';
import { findWallet } from '../../lib/wallet/wallets.ts';
import { get, type Harness, post, startHarness } from '../support/harness.ts';
import { createTestDatabase } from '../support/pg.ts';

const PATH = '/api_keys/generate_web3_key';

for (const [backend, wire] of [
  ['sqlite', 'service'],
  ['postgres', 'venice'],
] as const) {
  describe(`web3 keys on ${backend}, ${wire} wire names`, () => {
    let h: Harness;
    let dropDb: (() => Promise<void>) | undefined;

    before(async () => {
      let databaseUrl: string | undefined;
      if (backend === 'postgres') {
        const db = await createTestDatabase();
        databaseUrl = db.url;
        dropDb = db.drop;
      }
      h = await startHarness({ databaseUrl, env: { LAGOON_WIRE_NAME: wire } });
    });
    after(async () => {
      await h.close();
      await dropDb?.();
    });

    const token = async (): Promise<string> => {
      const r = await get(h, PATH);
      assert.equal(r.status, 200, r.text);
      return r.json.data.token;
    };

    test('GET gives a fresh short-lived JWT to sign, never cached', async () => {
      const r = await get(h, PATH);
      assert.equal(r.status, 200);
      assert.equal(r.json.success, true);
      assert.deepEqual(Object.keys(r.json.data), ['token']);
      assert.equal(r.headers.get('cache-control'), 'no-store');
      const [header, claims, mac] = r.json.data.token.split('.');
      assert.deepEqual(JSON.parse(Buffer.from(header, 'base64url').toString()), { alg: 'HS256', typ: 'JWT' });
      const c = JSON.parse(Buffer.from(claims, 'base64url').toString());
      assert.equal(c.exp - c.iat, WEB3_TOKEN_TTL_MS / 1000);
      assert.ok(mac.length > 20);
      assert.notEqual(await token(), r.json.data.token, 'every token is new');
    });

    test('an EVM wallet signs the token and gets a working key on its own wallet account', async () => {
      const account = privateKeyToAccount(generatePrivateKey());
      const t = await token();
      const r = await post(h, PATH, undefined, {
        address: account.address,
        signature: await account.signMessage({ message: t }),
        token: t,
        apiKeyType: 'ADMIN',
        consumptionLimit: { usd: 3 },
        limitPeriod: 'MONTH',
        modelPrivacy: 'PRIVATE_TEXT',
      });
      assert.equal(r.status, 200, r.text);
      const d = r.json.data;
      // The answer is POST /api_keys's.
      assert.deepEqual(Object.keys(r.json), ['success', 'data']);
      // `models` (a key's own model list) is Lagoon's field: absent with the public API's names.
      const ours = wire === 'venice' ? [] : ['models'];
      assert.deepEqual(Object.keys(d), ['id', 'apiKey', 'apiKeyType', 'description', 'expiresAt', 'consumptionLimit', 'limitPeriod', 'modelPrivacy', ...ours]);
      assert.deepEqual(
        [d.apiKeyType, d.description, d.expiresAt, d.consumptionLimit, d.limitPeriod, d.modelPrivacy],
        ['ADMIN', 'Web3 API Key', null, { usd: 3, diem: null, vcu: null }, 'MONTH', 'PRIVATE_TEXT'],
      );
      const wallet = await findWallet(h.svc.store, 'eip155', account.address);
      assert.ok(wallet, 'the wallet has its account');
      const principal = await authenticate(h.svc.store, d.apiKey);
      assert.equal(principal.accountId, wallet.accountId, 'the key is on the wallet account');
      // The key works like any other: it lists itself among the account's keys.
      const list = await get(h, '/api_keys', d.apiKey);
      assert.equal(list.status, 200);
      assert.ok(list.json.data.some((k: { id: string }) => k.id === d.id));
      // A second key for the same wallet lands on the same account.
      const t2 = await token();
      const again = await post(h, PATH, undefined, {
        address: account.address.toLowerCase(),
        signature: await account.signMessage({ message: t2 }),
        token: t2,
        apiKeyType: 'INFERENCE',
        description: 'second',
      });
      assert.equal(again.status, 200, again.text);
      assert.equal((await authenticate(h.svc.store, again.json.data.apiKey)).accountId, wallet.accountId);
    });

    test('a Solana wallet signs with Ed25519 (base58 or base64)', async () => {
      const seed = ed25519.utils.randomSecretKey();
      const address = base58.encode(ed25519.getPublicKey(seed));
      for (const encode of [(b: Uint8Array) => base58.encode(b), (b: Uint8Array) => Buffer.from(b).toString('base64')]) {
        const t = await token();
        const r = await post(h, PATH, undefined, {
          address,
          signature: encode(ed25519.sign(new TextEncoder().encode(t), seed)),
          token: t,
          apiKeyType: 'INFERENCE',
        });
        assert.equal(r.status, 200, r.text);
        assert.equal((await authenticate(h.svc.store, r.json.data.apiKey)).accountId, (await findWallet(h.svc.store, 'solana', address))!.accountId);
      }
    });

    test('a token buys one key; a wrong signature does not spend it', async () => {
      const account = privateKeyToAccount(generatePrivateKey());
      const other = privateKeyToAccount(generatePrivateKey());
      const t = await token();
      const body = { address: account.address, token: t, apiKeyType: 'INFERENCE' };
      const wrong = await post(h, PATH, undefined, { ...body, signature: await other.signMessage({ message: t }) });
      assert.deepEqual([wrong.status, wrong.json.error], [400, 'Wallet signature does not match']);
      const signature = await account.signMessage({ message: t });
      assert.equal((await post(h, PATH, undefined, { ...body, signature })).status, 200);
      const replay = await post(h, PATH, undefined, { ...body, signature });
      assert.equal(replay.status, 400);
      assert.match(replay.json.error, /already been used/);
      assert.equal(await findWallet(h.svc.store, 'eip155', other.address), undefined, 'a failed attempt creates no wallet');
    });

    test('bad tokens, addresses and key fields are 400s with the public messages', async () => {
      const account = privateKeyToAccount(generatePrivateKey());
      const t = await token();
      const signature = await account.signMessage({ message: t });
      const send = (over: Record<string, unknown>) =>
        post(h, PATH, undefined, { address: account.address, signature, token: t, apiKeyType: 'INFERENCE', ...over });
      const [head, claims, mac] = t.split('.');
      const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(claims, 'base64url').toString()), exp: 4_000_000_000 })).toString('base64url');
      const expired = (await issueWeb3Token(h.svc.store, Date.now() - WEB3_TOKEN_TTL_MS - 1000)).token;
      const cases: [Record<string, unknown>, string][] = [
        [{ address: '0x1234' }, 'Invalid wallet address'],
        [{ token: 'not-a-jwt' }, 'JWT is malformed'],
        [{ token: `${head}.${forged}.${mac}` }, 'JWT signature is invalid'],
        [{ token: `${head}.${claims}.${mac[0] === 'A' ? 'B' : 'A'}${mac.slice(1)}` }, 'JWT signature is invalid'],
        [{ token: expired, signature: await account.signMessage({ message: expired }) }, 'JWT has expired'],
      ];
      for (const [over, message] of cases) {
        const r = await send(over);
        assert.equal(r.status, 400, JSON.stringify(over));
        assert.equal(r.json.error, message, JSON.stringify(over));
      }
      for (const over of [{ apiKeyType: 'ROOT' }, { modelPrivacy: 'NONE' }, { description: 'x'.repeat(65) }, { unknownField: 1 }, { signature: undefined }]) {
        const r = await send(over);
        assert.equal(r.status, 400, JSON.stringify(over));
        assert.equal(r.json.code, 'INVALID_REQUEST');
      }
      // None of those spent the token.
      assert.equal((await send({})).status, 200);
    });
  });
}
