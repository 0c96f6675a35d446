// A key's modelPrivacy is enforced at admission for every inference endpoint: PRIVATE_TEXT refuses anonymized text
// and embedding models (media stays allowed), PRIVATE_ONLY refuses every anonymized model, ALL refuses none. A refusal
// is a 403 MODEL_PRIVACY_FORBIDDEN naming the setting and the model's privacy, reaches no engine and charges nothing.
// A restricted key sees only the models it may run in /models. SQLite and PostgreSQL (the setting is the key's row).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { accountKeys, type ModelPrivacy } from '../../lib/auth/keys.ts';
import { fliteModel, sphinxModel } from '../support/audio-catalogue.ts';
import { catalogueModel, get, type Harness, post, postBytes, scriptedEmbeddingModel, scriptedModel, startHarness } from '../support/harness.ts';
import { createTestDatabase } from '../support/pg.ts';
import { BACKENDS } from '../support/stores.ts';

const free = { input_usd: 0, output_usd: 0, input_diem: 0, output_diem: 0 };
const anonymized = { privacy: 'anonymized' } as const;
const video = catalogueModel('lagoon-demo-video');

const models = (engineUrl: string) => [
  scriptedModel('anon-text', engineUrl, anonymized),
  scriptedEmbeddingModel(engineUrl, { id: 'anon-embed', ...anonymized }),
  scriptedEmbeddingModel(engineUrl, { id: 'private-embed' }),
  {
    id: 'anon-image',
    name: 'Anonymized image',
    type: 'image',
    tier: 'XS',
    pricing: { ...free, per_image_usd: 0.01 },
    context_length: 1500,
    image: { max_side: 1024, steps: { default: 4, max: 8 } },
    engine: { kind: 'demo-image' },
    ...anonymized,
  },
  {
    id: 'private-image',
    name: 'Private image',
    type: 'image',
    tier: 'XS',
    pricing: { ...free, per_image_usd: 0.01 },
    context_length: 1500,
    image: { max_side: 1024, steps: { default: 4, max: 8 } },
    engine: { kind: 'demo-image' },
  },
  fliteModel({ id: 'anon-tts', ...anonymized }),
  sphinxModel({ id: 'anon-asr', ...anonymized }),
  { ...video, id: 'anon-video', traits: [], ...anonymized },
];

/** One second of 16 kHz mono silence as a WAV file (enough to be decoded and priced; it is never transcribed). */
function silentWav(): Buffer {
  const samples = 16_000;
  const b = Buffer.alloc(44 + samples * 2);
  b.write('RIFF', 0);
  b.writeUInt32LE(36 + samples * 2, 4);
  b.write('WAVEfmt ', 8);
  b.writeUInt32LE(16, 16);
  b.writeUInt16LE(1, 20); // PCM
  b.writeUInt16LE(1, 22); // mono
  b.writeUInt32LE(16_000, 24);
  b.writeUInt32LE(32_000, 28);
  b.writeUInt16LE(2, 32);
  b.writeUInt16LE(16, 34);
  b.write('data', 36);
  b.writeUInt32LE(samples * 2, 40);
  return b;
}

for (const backend of BACKENDS) {
  describe(`key modelPrivacy on ${backend}`, () => {
    let h: Harness;
    let dropDb = async () => {};
    before(async () => {
      let databaseUrl: string | undefined;
      if (backend === 'postgres') {
        const db = await createTestDatabase();
        databaseUrl = db.url;
        dropDb = db.drop;
      }
      h = await startHarness({ models, databaseUrl });
    });
    after(async () => {
      await h?.close();
      await dropDb();
    });

    /** A funded account with one INFERENCE key of this setting. */
    async function keyWith(modelPrivacy: ModelPrivacy) {
      const { accountId } = await h.newAccount({ usd: 10 });
      const { secret, key } = await accountKeys(h.svc.store, accountId).create({ type: 'INFERENCE', modelPrivacy });
      return { accountId, key: secret, keyId: key.id };
    }

    /** The account's balance, held amount and usage rows, once every settlement committed. */
    async function ledgerOf(accountId: string) {
      await h.svc.ledger.drain();
      const b = await h.svc.ledger.balances(accountId);
      const rows = await h.svc.store.all<{ model_id: string }>('SELECT model_id FROM usage WHERE account_id = $1', [accountId]);
      return { usd: b.usd, usdHeld: b.usdHeld, models: rows.map((r) => r.model_id) };
    }

    function assertRefused(r: { status: number; json: any }, setting: ModelPrivacy, model: string) {
      assert.equal(r.status, 403, JSON.stringify(r.json));
      assert.equal(r.json.code, 'MODEL_PRIVACY_FORBIDDEN');
      assert.equal(r.json.modelPrivacy, setting);
      assert.equal(r.json.modelId, model);
      assert.equal(r.json.privacy, 'anonymized');
      assert.match(r.json.error, new RegExp(`modelPrivacy is ${setting}.*${model}.*anonymized`));
    }

    test('ALL runs anonymized text, embedding and image models', async () => {
      const { key } = await keyWith('ALL');
      assert.equal((await post(h, '/chat/completions', key, { model: 'anon-text', messages: [{ role: 'user', content: 'hi' }] })).status, 200);
      assert.equal((await post(h, '/embeddings', key, { model: 'anon-embed', input: 'hi' })).status, 200);
      assert.equal((await post(h, '/image/generate', key, { model: 'anon-image', prompt: 'a lagoon', return_binary: false })).status, 200);
    });

    test('PRIVATE_TEXT refuses anonymized text (chat, stream, responses) and embeddings, charging nothing; private ones run', async () => {
      const { key, accountId } = await keyWith('PRIVATE_TEXT');
      const start = await ledgerOf(accountId);
      const enginesBefore = h.engine.requests.length + h.engine.embeddingRequests.length;
      const messages = [{ role: 'user', content: 'hi' }];
      assertRefused(await post(h, '/chat/completions', key, { model: 'anon-text', messages }), 'PRIVATE_TEXT', 'anon-text');
      assertRefused(await post(h, '/chat/completions', key, { model: 'anon-text', messages, stream: true }), 'PRIVATE_TEXT', 'anon-text');
      assertRefused(await post(h, '/responses', key, { model: 'anon-text', input: 'hi' }), 'PRIVATE_TEXT', 'anon-text');
      assertRefused(await post(h, '/embeddings', key, { model: 'anon-embed', input: 'hi' }), 'PRIVATE_TEXT', 'anon-embed');
      // A prompt large enough for the cheap affordability check is refused for privacy just the same.
      const big = [{ role: 'user', content: 'word '.repeat(20_000) }];
      assertRefused(await post(h, '/chat/completions', key, { model: 'anon-text', messages: big }), 'PRIVATE_TEXT', 'anon-text');
      assert.equal(h.engine.requests.length + h.engine.embeddingRequests.length, enginesBefore, 'no refused request reached an engine');
      assert.deepEqual(await ledgerOf(accountId), start, 'nothing charged or held');

      assert.equal((await post(h, '/chat/completions', key, { model: 'scripted-model', messages })).status, 200);
      assert.equal((await post(h, '/embeddings', key, { model: 'private-embed', input: 'hi' })).status, 200);
      // Media models are outside PRIVATE_TEXT.
      const image = await post(h, '/image/generate', key, { model: 'anon-image', prompt: 'a lagoon', return_binary: false });
      assert.equal(image.status, 200, image.text);
      assert.deepEqual((await ledgerOf(accountId)).models.sort(), ['anon-image', 'private-embed', 'scripted-model']);
    });

    test('PRIVATE_ONLY refuses anonymized image, speech, transcription and video models, charging nothing', async () => {
      const { key, accountId } = await keyWith('PRIVATE_ONLY');
      const start = await ledgerOf(accountId);
      assertRefused(await post(h, '/image/generate', key, { model: 'anon-image', prompt: 'a lagoon' }), 'PRIVATE_ONLY', 'anon-image');
      assertRefused(await post(h, '/audio/speech', key, { model: 'anon-tts', input: 'hello', voice: 'slt' }), 'PRIVATE_ONLY', 'anon-tts');
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(silentWav())]), 'silence.wav');
      form.append('model', 'anon-asr');
      const asr = await postBytes(h, '/audio/transcriptions', key, form);
      assertRefused(asr, 'PRIVATE_ONLY', 'anon-asr');
      const queued = await post(h, '/video/queue', key, { model: 'anon-video', prompt: 'a lagoon at dawn', duration: '5s', resolution: '480p' });
      assertRefused(queued, 'PRIVATE_ONLY', 'anon-video');
      const jobs = await h.svc.store.all('SELECT id FROM jobs WHERE account_id = $1', [accountId]);
      assert.equal(jobs.length, 0, 'no job was queued');
      assert.deepEqual(await ledgerOf(accountId), start, 'nothing charged or held');
      // Private models run.
      const image = await post(h, '/image/generate', key, { model: 'private-image', prompt: 'a lagoon', return_binary: false });
      assert.equal(image.status, 200, image.text);
      assert.deepEqual((await ledgerOf(accountId)).models, ['private-image']);
    });

    test('a PATCH of modelPrivacy applies to the next request', async () => {
      const { accountId } = await h.newAccount({ usd: 10 });
      const admin = await accountKeys(h.svc.store, accountId).create({ type: 'ADMIN' });
      const { key, keyId } = await (async () => {
        const k = await accountKeys(h.svc.store, accountId).create({ type: 'INFERENCE' });
        return { key: k.secret, keyId: k.key.id };
      })();
      const ask = () => post(h, '/chat/completions', key, { model: 'anon-text', messages: [{ role: 'user', content: 'hi' }] });
      assert.equal((await ask()).status, 200);
      const patched = await fetch(`${h.base}/api_keys`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${admin.secret}` },
        body: JSON.stringify({ id: keyId, modelPrivacy: 'PRIVATE_TEXT' }),
      });
      assert.equal(patched.status, 200);
      assertRefused(await ask(), 'PRIVATE_TEXT', 'anon-text');
    });

    test('/models lists only what a restricted key may run; without a key (or with an invalid one) everything', async () => {
      const ids = async (key?: string) => ((await get(h, '/models?type=all', key)).json.data as { id: string }[]).map((m) => m.id);
      const everything = await ids();
      for (const id of ['anon-text', 'anon-embed', 'anon-image', 'anon-tts', 'anon-asr', 'anon-video']) assert.ok(everything.includes(id), id);
      assert.deepEqual(await ids('lgn_inf_not-a-key'), everything);
      assert.deepEqual(await ids((await keyWith('ALL')).key), everything);
      const privateText = await ids((await keyWith('PRIVATE_TEXT')).key);
      assert.deepEqual(
        everything.filter((id) => !privateText.includes(id)),
        ['anon-text', 'anon-embed'],
      );
      const privateOnly = await ids((await keyWith('PRIVATE_ONLY')).key);
      assert.deepEqual(everything.filter((id) => !privateOnly.includes(id)).sort(), [
        'anon-asr',
        'anon-embed',
        'anon-image',
        'anon-text',
        'anon-tts',
        'anon-video',
      ]);
    });
  });
}
