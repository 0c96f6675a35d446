// End-to-end encryption through the real server and its real worker (a child process with the only key), on the
// embedded store and on PostgreSQL: attestation, a sealed chat whose deltas open with the client's key, the engine
// seeing plain text while no database row holds it, the signed usage settling the hold, the response signature
// recovered and recomputed, the 400s that say why, replay, a stale key after the worker restarts, and no charge for
// anything refused. The client side here is written from the protocol (noble + WebCrypto), not from our code.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { recoverMessageAddress } from 'viem';
import { publicKeyToAddress } from 'viem/accounts';
import { catalogueModel, type Harness, scriptedModel, startHarness } from '../support/harness.ts';
import { DEMO_WORDS } from '../../lib/engines/text/llama/demo-model.ts';
import { createTestDatabase } from '../support/pg.ts';

const CANARY = 'octopus-canary-7f3a';
const sha256 = (b: Uint8Array | string) => createHash('sha256').update(b).digest('hex');

/** A client of the protocol: its key pair, sealing to the worker, opening what comes back. */
class Client {
  readonly secret = secp256k1.utils.randomSecretKey();
  readonly publicHex = Buffer.from(secp256k1.getPublicKey(this.secret, false)).toString('hex');

  private async key(secret: Uint8Array, peer: Uint8Array, use: KeyUsage) {
    const x = new Uint8Array(secp256k1.getSharedSecret(secret, peer, false).slice(1, 33));
    const base = await crypto.subtle.importKey('raw', x, 'HKDF', false, ['deriveKey']);
    const info = new TextEncoder().encode('ecdsa_encryption');
    return crypto.subtle.deriveKey({ name: 'HKDF', hash: 'SHA-256', salt: new Uint8Array(0), info }, base, { name: 'AES-GCM', length: 256 }, false, [use]);
  }

  async seal(modelKeyHex: string, text: string): Promise<string> {
    const iv = crypto.getRandomValues(new Uint8Array(12));
    const key = await this.key(this.secret, Buffer.from(modelKeyHex, 'hex'), 'encrypt');
    const ct = new Uint8Array(await crypto.subtle.encrypt({ name: 'AES-GCM', iv }, key, new TextEncoder().encode(text)));
    return Buffer.concat([Buffer.from(this.publicHex, 'hex'), iv, ct]).toString('hex');
  }

  async open(hex: string): Promise<string> {
    const raw = new Uint8Array(Buffer.from(hex, 'hex'));
    const key = await this.key(this.secret, raw.slice(0, 65), 'decrypt');
    return new TextDecoder().decode(await crypto.subtle.decrypt({ name: 'AES-GCM', iv: raw.slice(65, 77) }, key, raw.slice(77)));
  }
}

const nonce = () => Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('hex');

for (const backend of ['sqlite', 'postgres'] as const) {
  describe(`E2EE chat (${backend})`, () => {
    let h: Harness;
    let key: string;
    let accountId: string;
    let dropDb: (() => Promise<void>) | undefined;

    before(async () => {
      const db = backend === 'postgres' ? await createTestDatabase() : undefined;
      dropDb = db?.drop;
      h = await startHarness({
        databaseUrl: db?.url,
        models: (url) => [scriptedModel('e2ee-model', url, { capabilities: { e2ee: true } }), catalogueModel('lagoon-demo')],
      });
      ({ key, accountId } = await h.newAccount({ usd: 5 }));
    });
    after(async () => {
      await h?.close();
      await dropDb?.();
    });

    const attest = async () => {
      const n = nonce();
      const r = await fetch(`${h.base}/tee/attestation?model=e2ee-model&nonce=${n}`);
      assert.equal(r.status, 200, await r.clone().text());
      return { nonce: n, body: (await r.json()) as Record<string, any> };
    };
    const balance = async () => Number((await h.svc.store.get<{ usd: string }>('SELECT usd FROM accounts WHERE id = $1', [accountId]))!.usd);
    const post = (body: string, headers: Record<string, string>, auth = key) =>
      fetch(`${h.base}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${auth}`, ...headers },
        body,
      });
    const e2eeHeaders = (client: Client, modelKey: string) => ({
      'x-service-tee-client-pub-key': client.publicHex,
      'x-service-tee-model-pub-key': modelKey,
      'x-service-tee-signing-algo': 'ecdsa',
    });
    async function sealedRequest(client: Client, modelKey: string, text: string, over: Record<string, unknown> = {}) {
      return JSON.stringify({
        model: 'e2ee-model',
        stream: true,
        stream_options: { include_usage: true },
        service_parameters: { enable_e2ee: true },
        messages: [
          { role: 'system', content: await client.seal(modelKey, 'Be brief.') },
          { role: 'user', content: await client.seal(modelKey, `[[echo]] ${text}`) },
        ],
        ...over,
      });
    }
    const events = (text: string) =>
      text
        .split('\n\n')
        .filter((e) => e.startsWith('data: '))
        .map((e) => e.slice(6));

    test('attestation: the nonce echoed, the worker key and its address, and no quote: verified false, provider none', async () => {
      const { nonce: n, body } = await attest();
      assert.equal(body.nonce, n);
      assert.equal(body.verified, false);
      assert.equal(body.tee_provider, 'none');
      assert.equal(body.intel_quote, null);
      assert.equal(body.model, 'e2ee-model');
      assert.match(body.signing_key, /^04[0-9a-f]{128}$/);
      assert.equal(body.signing_address, publicKeyToAddress(`0x${body.signing_key}`));
      // The worker signs the nonce: it holds the key now (no more than that).
      const signer = await recoverMessageAddress({ message: `lagoon-e2ee-attestation:${n}:e2ee-model`, signature: body.key_proof });
      assert.equal(signer, body.signing_address);
      assert.equal((await fetch(`${h.base}/tee/attestation?model=e2ee-model&nonce=abc`)).status, 400);
      assert.equal((await fetch(`${h.base}/tee/attestation?model=e2ee-model`)).status, 400);
      const plain = await fetch(`${h.base}/tee/attestation?model=scripted-model&nonce=${n}`);
      assert.equal(plain.status, 400);
      assert.match(((await plain.json()) as { error: string }).error, /does not support end-to-end encryption/);
      const models = (await (await fetch(`${h.base}/models`, { headers: { authorization: `Bearer ${key}` } })).json()) as { data: any[] };
      const spec = models.data.find((m) => m.id === 'e2ee-model').model_spec.capabilities;
      assert.equal(spec.supportsE2EE, true);
      assert.equal(spec.supportsTeeAttestation, false);
    });

    test('a sealed chat: every delta opens with the client key, usage is plain, the signed count is billed', async () => {
      const { body: att } = await attest();
      const client = new Client();
      const before = await balance();
      const body = await sealedRequest(client, att.signing_key, `tell me about the ${CANARY}`);
      const r = await post(body, e2eeHeaders(client, att.signing_key));
      assert.equal(r.status, 200);
      assert.equal(r.headers.get('x-service-tee'), 'true');
      assert.equal(r.headers.get('x-service-tee-provider'), 'none');
      const raw = await r.text();
      assert.ok(!raw.includes(CANARY), 'the stream carries no plain text');
      assert.ok(!raw.includes('lagoon-usage'), 'the worker trailer is stripped');
      let text = '';
      let usage: any;
      let id = '';
      for (const data of events(raw)) {
        if (data === '[DONE]') continue;
        const chunk = JSON.parse(data);
        id ||= chunk.id;
        if (chunk.usage) usage = chunk.usage;
        const c = chunk.choices[0]?.delta?.content;
        if (c) text += await client.open(c);
      }
      assert.equal(text, `tell me about the ${CANARY}`);
      assert.ok(usage.completion_tokens > 0 && usage.prompt_tokens > 0);
      // The engine saw the text (the worker opened it); the gateway stored none of it.
      assert.ok(JSON.stringify(h.engine.requests.at(-1)).includes(CANARY));
      await h.svc.ledger.drain();
      const row = await h.svc.store.get<any>('SELECT prompt_tokens, completion_tokens, usd FROM usage WHERE request_id = $1', [id.slice('chatcmpl-'.length)]);
      assert.equal(Number(row.prompt_tokens), usage.prompt_tokens);
      assert.equal(Number(row.completion_tokens), usage.completion_tokens);
      assert.ok(Number(row.usd) > 0);
      assert.equal(before - (await balance()), Number(row.usd));
      assert.equal(Number((await h.svc.store.get<{ held: string }>('SELECT COALESCE(SUM(usd), 0) AS held FROM holds'))?.held ?? 0), 0);
      for (const table of (
        await h.svc.store.all<{ name: string }>(
          backend === 'sqlite'
            ? "SELECT name FROM sqlite_master WHERE type = 'table'"
            : "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public'",
        )
      ).map((t) => t.name)) {
        const rows = await h.svc.store.all(`SELECT * FROM ${table}`);
        assert.ok(!JSON.stringify(rows).includes(CANARY), `no row of ${table} holds the text`);
      }

      // The response signature: the attested key signed sha256(request):sha256(response); both recompute.
      const sig = await fetch(`${h.base}/tee/signature?model=e2ee-model&request_id=${id}`, { headers: { authorization: `Bearer ${key}` } });
      assert.equal(sig.status, 200, await sig.clone().text());
      const s = (await sig.json()) as Record<string, any>;
      assert.equal(s.text, `${sha256(body)}:${sha256(raw)}`);
      assert.equal(await recoverMessageAddress({ message: s.text, signature: s.signature }), att.signing_address);
      assert.equal(s.signing_address, att.signing_address);
      // Another account's key does not get it.
      const other = await h.newAccount();
      const theirs = await fetch(`${h.base}/tee/signature?model=e2ee-model&request_id=${id}`, { headers: { authorization: `Bearer ${other.key}` } });
      assert.equal(theirs.status, 404);
    });

    test('the default demo model answers sealed too: llama.cpp runs in the worker, not in the gateway', async () => {
      const n = nonce();
      const att = (await (await fetch(`${h.base}/tee/attestation?model=lagoon-demo&nonce=${n}`)).json()) as Record<string, string>;
      const client = new Client();
      const body = JSON.stringify({
        model: 'lagoon-demo',
        stream: true,
        max_completion_tokens: 12,
        service_parameters: { enable_e2ee: true },
        messages: [{ role: 'user', content: await client.seal(att.signing_key, 'Say something.') }],
      });
      const r = await post(body, e2eeHeaders(client, att.signing_key));
      assert.equal(r.status, 200);
      let text = '';
      for (const data of events(await r.text())) {
        if (data === '[DONE]') continue;
        const c = JSON.parse(data).choices?.[0]?.delta?.content;
        if (c) text += await client.open(c);
      }
      const words = text.split(/[^A-Za-z]+/).filter(Boolean);
      assert.ok(words.length > 0, text);
      for (const w of words) assert.ok(DEMO_WORDS.includes(w), `${w} is a demo word (${text})`);
    });

    test('refused with a 400 that says why, and nothing charged', async () => {
      const { body: att } = await attest();
      const client = new Client();
      const k = att.signing_key as string;
      // An earlier test's answer may still be settling: let it land before the balance this test compares against.
      await h.svc.ledger.drain();
      const before = await balance();
      const refused = async (body: string, headers: Record<string, string>, pattern: RegExp) => {
        const r = await post(body, headers);
        const text = await r.text();
        assert.equal(r.status, 400, text);
        assert.match(JSON.parse(text).error, pattern);
      };
      const good = e2eeHeaders(client, k);
      await refused(await sealedRequest(client, k, 'x', { stream: false }), good, /requires streaming/);
      await refused(await sealedRequest(client, k, 'x', { tools: [{ type: 'function', function: { name: 'f', parameters: {} } }] }), good, /function calling/);
      await refused(
        JSON.stringify({ model: 'e2ee-model', stream: true, messages: [{ role: 'user', content: 'plain words' }], service_parameters: { enable_e2ee: true } }),
        good,
        /Encrypted field is not valid hex/,
      );
      await refused(
        JSON.stringify({ model: 'e2ee-model', stream: true, messages: [{ role: 'user', content: [{ type: 'text', text: 'x' }] }] }),
        good,
        /encrypted text only/,
      );
      await refused(await sealedRequest(client, k, 'x', { service_parameters: { enable_e2ee: true, enable_web_search: 'on' } }), good, /web search/);
      await refused(await sealedRequest(client, k, 'x', { service_parameters: { enable_e2ee: true, character_slug: 'alan-watts' } }), good, /characters/);
      await refused(await sealedRequest(client, k, 'x'), { ...good, 'x-service-tee-client-pub-key': '04abc' }, /Invalid E2EE headers/);
      await refused(await sealedRequest(client, k, 'x'), { ...good, 'x-service-tee-signing-algo': 'ed25519' }, /ecdsa/);
      const altered = JSON.parse(await sealedRequest(client, k, 'x'));
      altered.messages[1].content = altered.messages[1].content.slice(0, -2) + (altered.messages[1].content.endsWith('00') ? '11' : '00');
      await refused(JSON.stringify(altered), good, /Failed to decrypt/);
      // A replay of an answered request is refused.
      const once = await sealedRequest(client, k, 'only once');
      assert.equal((await (await post(once, good)).text()).includes('[DONE]'), true);
      await refused(once, good, /replay/);
      await h.svc.ledger.drain();
      const charged = await h.svc.store.get<{ usd: string }>('SELECT COALESCE(SUM(usd), 0) AS usd FROM usage WHERE account_id = $1 AND created_at >= $2', [
        accountId,
        0,
      ]);
      assert.ok(Number(charged!.usd) > 0);
      // Only the one answered request cost anything.
      const answered = await h.svc.store.all<{ usd: string }>('SELECT usd FROM usage WHERE account_id = $1 ORDER BY created_at DESC LIMIT 1', [accountId]);
      assert.equal(before - (await balance()), Number(answered[0].usd));
    });

    test('a key the worker no longer holds: the in-band e2ee_attestation_stale error, then [DONE]; a restarted worker has a new key', async () => {
      const { body: att } = await attest();
      const client = new Client();
      const stranger = Buffer.from(secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), false)).toString('hex');
      const before = await balance();
      const r = await post(await sealedRequest(client, stranger, 'x'), e2eeHeaders(client, stranger));
      assert.equal(r.status, 200);
      const got = events(await r.text());
      assert.equal(JSON.parse(got[0]).error.code, 'e2ee_attestation_stale');
      assert.equal(got.at(-1), '[DONE]');
      await h.svc.ledger.drain();
      assert.equal(await balance(), before);

      // The worker restarts (here: it is killed): the next use starts a new one, with a new key.
      const child = (h.svc.e2ee as unknown as { child: { kill(): void; once(e: string, f: () => void): void } }).child;
      const exited = new Promise<void>((resolve) => child.once('exit', resolve));
      child.kill();
      await exited;
      const { body: fresh } = await attest();
      assert.notEqual(fresh.signing_key, att.signing_key);
      const stale = await post(await sealedRequest(client, att.signing_key, 'x'), e2eeHeaders(client, att.signing_key));
      assert.equal(JSON.parse(events(await stale.text())[0]).error.code, 'e2ee_attestation_stale');
    });

    test('without the headers, or with enable_e2ee: false, the E2EE model answers in plain text', async () => {
      const plain = await post(JSON.stringify({ model: 'e2ee-model', messages: [{ role: 'user', content: '[[echo]] hello' }] }), {});
      assert.equal(plain.status, 200);
      assert.equal(((await plain.json()) as any).choices[0].message.content, 'hello');
      const client = new Client();
      const { body: att } = await attest();
      const off = await post(
        JSON.stringify({ model: 'e2ee-model', messages: [{ role: 'user', content: '[[echo]] hi' }], service_parameters: { enable_e2ee: false } }),
        e2eeHeaders(client, att.signing_key),
      );
      assert.equal(off.status, 200);
      assert.equal(((await off.json()) as any).choices[0].message.content, 'hi');
    });
  });
}

describe('E2EE with the public clients, in venice mode', () => {
  let h: Harness;
  let key: string;
  before(async () => {
    h = await startHarness({ env: { LAGOON_WIRE_NAME: 'venice' }, models: (url) => [scriptedModel('e2ee-model', url, { capabilities: { e2ee: true } })] });
    ({ key } = await h.newAccount({ usd: 5 }));
  });
  after(async () => h?.close());

  test('the community client venice-e2ee (attestation checks off) attests, encrypts, streams and decrypts, and fetches the signature', async () => {
    const { createVeniceE2EE } = await import('venice-e2ee');
    const e2ee = createVeniceE2EE({ apiKey: key, baseUrl: h.origin, verifyAttestation: false });
    const session = await e2ee.createSession('e2ee-model');
    const { encryptedMessages, headers, veniceParameters } = await e2ee.encrypt(
      [
        { role: 'system', content: 'Answer briefly.' },
        { role: 'user', content: '[[echo]] the quick brown fox' },
      ],
      session,
    );
    const body = JSON.stringify({ model: 'e2ee-model', messages: encryptedMessages, stream: true, venice_parameters: veniceParameters });
    const res = await fetch(`${h.base}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, ...headers },
      body,
    });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('x-venice-tee'), 'true');
    const id = `chatcmpl-${res.headers.get('cf-ray')}`;
    let text = '';
    for await (const piece of e2ee.decryptStream(res.body!, session)) text += piece;
    assert.equal(text, 'the quick brown fox');
    const receipt = (await e2ee.fetchResponseSignature('e2ee-model', id)) as { text: string; signature: `0x${string}`; signing_address: string };
    assert.equal(await recoverMessageAddress({ message: receipt.text, signature: receipt.signature }), receipt.signing_address);
    assert.equal(receipt.text.split(':')[0], sha256(body));
  });

  test("the public CLI's flow: each message sealed with its own throwaway key, the answer sealed to the header key", async () => {
    const att = (await (await fetch(`${h.base}/tee/attestation?model=e2ee-model&nonce=${nonce()}`)).json()) as Record<string, string>;
    const client = new Client();
    const messages = [
      { role: 'system', content: await new Client().seal(att.signing_key, 'Be kind.') },
      { role: 'user', content: await new Client().seal(att.signing_key, '[[echo]] over the lazy dog') },
    ];
    const res = await fetch(`${h.base}/chat/completions`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${key}`,
        'X-Venice-TEE-Client-Pub-Key': client.publicHex,
        'X-Venice-TEE-Model-Pub-Key': att.signing_key,
        'X-Venice-TEE-Signing-Algo': 'ecdsa',
      },
      body: JSON.stringify({ model: 'e2ee-model', messages, stream: true, venice_parameters: { enable_e2ee: true } }),
    });
    assert.equal(res.status, 200);
    let text = '';
    for (const e of (await res.text()).split('\n\n')) {
      if (!e.startsWith('data: ') || e === 'data: [DONE]') continue;
      const c = JSON.parse(e.slice(6)).choices?.[0]?.delta?.content;
      if (c) text += await client.open(c);
    }
    assert.equal(text, 'over the lazy dog');
  });
});
