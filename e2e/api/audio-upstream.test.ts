// The openai-audio engine against a loopback fake of the OpenAI audio API (e2e/support/audio-upstreams.ts): speech
// passed through as the upstream streams it, the fields it is sent, errors mapped and never charged, admission at
// capacity; transcription of the upload as sent; and a long text made piece by piece in pcm into one file.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createOpenAIAudioEngine } from '../../lib/engines/audio/openai-audio.ts';
import { SENTENCE_PAUSE, synthesizeToFile } from '../../lib/audio/speech-audio.ts';
import { parseWav } from '../../lib/engines/audio/wav.ts';
import { type AudioUpstream, FAKE_RATE, FAKE_TRANSCRIPT, fakeSpeech, fakeTone, startAudioUpstream } from '../support/audio-upstreams.ts';
import { get, type Harness, post, startHarness } from '../support/harness.ts';

let h: Harness;
let up: AudioUpstream;
const PER_CHAR = 1000;

before(async () => {
  up = await startAudioUpstream();
  const price = { input_usd: 0, output_usd: 0, input_diem: 0, output_diem: 0 };
  h = await startHarness({
    env: { FAKE_AUDIO_KEY: 'sk-fake-audio' },
    models: [
      {
        id: 'tts-up',
        name: 'Kokoro upstream',
        type: 'tts',
        tier: 'XS',
        pricing: { ...price, per_1k_characters_usd: 1 },
        context_length: 4096,
        traits: ['default'],
        audio: { voices: ['af_sky', 'am_adam'], default_voice: 'af_sky', prompt: true, default_format: 'mp3' },
        engine: { kind: 'openai-audio', baseUrl: up.url, model: 'kokoro', apiKeyEnv: 'FAKE_AUDIO_KEY', maxConcurrency: 1, maxQueue: 0 },
      },
      {
        id: 'tts-up-any',
        name: 'Any voice upstream',
        type: 'tts',
        tier: 'XS',
        pricing: { ...price, per_1k_characters_usd: 1 },
        context_length: 4096,
        engine: { kind: 'openai-audio', baseUrl: up.url },
      },
      {
        id: 'asr-up',
        name: 'Whisper upstream',
        type: 'asr',
        tier: 'XS',
        pricing: { ...price, per_second_usd: 0.01 },
        context_length: 1800,
        traits: ['default'],
        audio: { timestamps: ['word', 'segment'] },
        engine: { kind: 'openai-audio', baseUrl: `${up.url}/`, model: 'whisper-large-v3' },
      },
    ],
  });
});
after(async () => {
  await h?.close();
  await up?.close();
});

async function speech(key: string, body: Record<string, unknown>) {
  const res = await fetch(`${h.base}/audio/speech`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify(body),
  });
  const chunks: Buffer[] = [];
  try {
    for await (const c of res.body as unknown as AsyncIterable<Uint8Array>) chunks.push(Buffer.from(c));
  } catch {
    /* a cut stream: what arrived is kept */
  }
  const bytes = Buffer.concat(chunks);
  let json: any;
  try {
    json = JSON.parse(bytes.toString());
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, bytes, json, chunks: chunks.length };
}

const usageRows = async (accountId: string) => {
  await h.svc.ledger.drain();
  return h.svc.store.all<any>('SELECT * FROM usage WHERE account_id = $1 ORDER BY created_at, request_id', [accountId]);
};

describe('openai-audio speech', () => {
  test('the upstream answer passes through byte for byte; it is sent OpenAI fields with its own model name and key', async () => {
    const { key, accountId } = await h.newAccount();
    const input = 'Hello from the upstream voice.';
    for (const format of ['mp3', 'wav', 'pcm', 'opus']) {
      const r = await speech(key, { model: 'tts-up', input, voice: 'am_adam', response_format: format, speed: 1.5, prompt: 'warmly' });
      assert.equal(r.status, 200);
      assert.deepEqual(r.bytes, fakeSpeech(input, format), `${format} passed through`);
      assert.equal(r.headers.get('x-service-model-router'), 'openai-audio');
      const sent = up.speech.at(-1)!;
      assert.deepEqual(sent.body, { model: 'kokoro', input, voice: 'am_adam', response_format: format, speed: 1.5, instructions: 'warmly' });
      assert.equal(sent.authorization, 'Bearer sk-fake-audio');
    }
    const rows = await usageRows(accountId);
    assert.deepEqual(
      rows.map((r) => [r.unit, Number(r.quantity), Number(r.usd)]),
      Array(4).fill(['character', input.length, input.length * PER_CHAR]),
    );
    // A model without a voice list lets the upstream judge the voice; the catalogue id is its model name.
    const any = await speech(key, { model: 'tts-up-any', input: 'x', voice: 'some_new_voice', response_format: 'wav' });
    assert.equal(any.status, 200);
    assert.deepEqual(
      [up.speech.at(-1)!.body.model, up.speech.at(-1)!.body.voice, up.speech.at(-1)!.authorization],
      ['tts-up-any', 'some_new_voice', undefined],
    );
    const bad = await speech(key, { model: 'tts-up', input: 'x', voice: 'alloy' });
    assert.deepEqual([bad.status, bad.json.code], [400, 'INVALID_REQUEST']);
  });

  test('streaming passes the upstream chunks on as they come, billed once the stream ends', async () => {
    const { key, accountId } = await h.newAccount();
    const input = 'A longer text, streamed from the upstream as it speaks. '.repeat(3).trim();
    const r = await speech(key, { model: 'tts-up', input, response_format: 'pcm', streaming: true });
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('content-length'), null);
    assert.ok(r.chunks > 1);
    assert.deepEqual(r.bytes, fakeTone(input));
    assert.deepEqual(
      (await usageRows(accountId)).map((row) => Number(row.quantity)),
      [input.length],
    );
  });

  test('upstream failures map to 400, 503 and 500 and cost nothing; a stream cut midway is not billed', async () => {
    const { key, accountId } = await h.newAccount();
    const cases: [string, number, string][] = [
      ['[[status:400]]', 400, 'INVALID_REQUEST'],
      ['[[status:422]]', 400, 'INVALID_REQUEST'],
      ['[[status:503]]', 503, 'MODEL_AT_CAPACITY'],
      ['[[status:429]]', 503, 'MODEL_AT_CAPACITY'],
      ['[[status:500]]', 500, 'INFERENCE_FAILED'],
    ];
    for (const [input, status, code] of cases) {
      for (const streaming of [false, true]) {
        const r = await speech(key, { model: 'tts-up', input, streaming });
        assert.deepEqual([r.status, r.json?.code], [status, code], `${input} streaming=${streaming}`);
      }
    }
    const cut = await speech(key, { model: 'tts-up', input: `[[fail_mid]] ${'word '.repeat(200)}`, response_format: 'pcm', streaming: true });
    assert.equal(cut.status, 200);
    assert.ok(cut.bytes.length < fakeTone(`[[fail_mid]] ${'word '.repeat(200)}`).length, 'cut short');
    let b = await h.svc.ledger.balances(accountId);
    for (let i = 0; i < 100 && b.usdHeld !== 0; i++) {
      await new Promise((r) => setTimeout(r, 20));
      b = await h.svc.ledger.balances(accountId);
    }
    assert.deepEqual([b.usd, b.usdHeld], [10_000_000, 0]);
    assert.deepEqual(await usageRows(accountId), []);
  });

  test('at capacity (one at a time, no queue) the next request is a 503 with Retry-After, charged nothing', async () => {
    const { key, accountId } = await h.newAccount();
    const before = up.speech.length;
    const slow = speech(key, { model: 'tts-up', input: '[[delay:800]] slow', response_format: 'wav' });
    while (up.speech.length === before) await new Promise((r) => setTimeout(r, 10));
    const busy = await speech(key, { model: 'tts-up', input: 'fast', response_format: 'wav' });
    assert.deepEqual([busy.status, busy.json.code], [503, 'MODEL_AT_CAPACITY']);
    assert.ok(busy.headers.get('retry-after'));
    assert.equal((await slow).status, 200);
    assert.deepEqual(
      (await usageRows(accountId)).map((r) => Number(r.quantity)),
      ['[[delay:800]] slow'.length],
    );
  });

  test('a long text, piece by piece in pcm, into one WAV at the upstream rate (what a long-audio job runs)', async () => {
    const engine = createOpenAIAudioEngine({ baseUrl: up.url, model: 'kokoro' });
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lagoon-up-long-'));
    try {
      const sentences = ['First part of a chapter.', 'Second part, a little longer than the first.', 'The end.'];
      const before = up.speech.length;
      const out = path.join(dir, 'chapter.wav');
      const r = await synthesizeToFile({
        engine,
        ffmpeg: undefined,
        input: sentences.join(' '),
        format: 'wav',
        voice: { voice: 'af_sky', speed: 1, signal: new AbortController().signal },
        outPath: out,
      });
      assert.deepEqual(
        up.speech.slice(before).map((c) => [c.body.input, c.body.response_format]),
        sentences.map((s) => [s, 'pcm']),
      );
      const wav = parseWav(fs.readFileSync(out));
      assert.equal(wav.sampleRate, FAKE_RATE);
      const pause = Buffer.alloc(Math.round(FAKE_RATE * SENTENCE_PAUSE) * 2);
      assert.deepEqual(wav.samples, Buffer.concat([fakeTone(sentences[0]), pause, fakeTone(sentences[1]), pause, fakeTone(sentences[2])]));
      assert.equal(r.characters, sentences.join(' ').length);
    } finally {
      await engine.close?.();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('GET /models?type=tts names the upstream as openai-compatible', async () => {
    const r = await get(h, '/models?type=tts');
    const m = r.json.data.find((d: any) => d.id === 'tts-up').model_spec;
    assert.deepEqual([m.modelSource, m.voices, m.supportsPromptParam], ['openai-compatible', ['af_sky', 'am_adam'], true]);
    assert.equal(r.json.data.find((d: any) => d.id === 'tts-up-any').model_spec.voices, null);
  });
});

describe('openai-audio transcription', () => {
  // A second of 16-bit mono silence at 16 kHz with a 440 Hz tone: something ffmpeg decodes and measures.
  const wav = (() => {
    const pcm = Buffer.alloc(16000 * 2 * 2);
    for (let i = 0; i < 32000; i++) pcm.writeInt16LE(Math.round(5000 * Math.sin((2 * Math.PI * 440 * i) / 16000)), i * 2);
    const header = Buffer.alloc(44);
    header.write('RIFF', 0);
    header.writeUInt32LE(36 + pcm.length, 4);
    header.write('WAVEfmt ', 8);
    header.writeUInt32LE(16, 16);
    header.writeUInt16LE(1, 20);
    header.writeUInt16LE(1, 22);
    header.writeUInt32LE(16000, 24);
    header.writeUInt32LE(32000, 28);
    header.writeUInt16LE(2, 32);
    header.writeUInt16LE(16, 34);
    header.write('data', 36);
    header.writeUInt32LE(pcm.length, 40);
    return Buffer.concat([header, pcm]);
  })();

  const upload = async (key: string, fields: Record<string, string | string[]> = {}) => {
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(wav)], { type: 'audio/wav' }), 'tone.wav');
    for (const [k, v] of Object.entries(fields)) for (const one of Array.isArray(v) ? v : [v]) form.append(k, one);
    const res = await fetch(`${h.base}/audio/transcriptions`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form });
    return { status: res.status, json: (await res.json()) as any };
  };

  test('the upload goes upstream as sent, asking verbose_json with word times; our duration is billed', async () => {
    const { key, accountId } = await h.newAccount();
    const r = await upload(key, { model: 'asr-up', timestamps: 'true', language: 'en', prompt: 'a tone' });
    assert.equal(r.status, 200);
    assert.equal(r.json.text, FAKE_TRANSCRIPT);
    assert.equal(r.json.duration, 2);
    assert.equal(r.json.timestamps.word.length, 9);
    assert.deepEqual(r.json.timestamps.segment, [{ text: FAKE_TRANSCRIPT, start: 0, end: 4.5 }]);
    const sent = up.transcriptions.at(-1)!;
    assert.deepEqual(sent.file, { name: 'tone.wav', type: 'audio/wav', bytes: wav });
    assert.deepEqual(sent.fields, {
      model: ['whisper-large-v3'],
      response_format: ['verbose_json'],
      'timestamp_granularities[]': ['segment', 'word'],
      language: ['en'],
      prompt: ['a tone'],
    });
    const rows = await usageRows(accountId);
    assert.deepEqual(
      rows.map((row) => [row.endpoint, row.unit, Number(row.quantity), Number(row.usd)]),
      [['/audio/transcriptions', 'second', 2, 20_000]],
    );
  });

  test('upstream failures are 400/503/500 and release the hold', async () => {
    const { key, accountId } = await h.newAccount();
    for (const [status, code] of [
      [400, 'INVALID_REQUEST'],
      [503, 'MODEL_AT_CAPACITY'],
      [500, 'INFERENCE_FAILED'],
    ] as const) {
      const r = await upload(key, { model: 'asr-up', prompt: `[[status:${status}]]` });
      assert.deepEqual([r.status, r.json.code], [status, code]);
    }
    assert.deepEqual(await usageRows(accountId), []);
    assert.equal((await h.svc.ledger.balances(accountId)).usdHeld, 0);
    const bad = await post(h, '/video/transcriptions', key, { url: 'https://vimeo.com/12345', model: 'asr-up' });
    assert.deepEqual([bad.status, bad.json.code], [400, 'INVALID_REQUEST']);
  });
});
