// POST /api/v1/audio/transcriptions and /video/transcriptions end to end on the local engine (ffmpeg → pocketsphinx):
// the round trip from our own speech (word accuracy ≥ 80 %), upload containers, answer formats and timestamps, the
// openai client, billing by the second, 413/422/400s that cost nothing, media URLs, chat's input_audio for a model
// that does not hear, and a server without pocketsphinx.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import OpenAI, { toFile } from 'openai';
import { fliteModel, sphinxModel } from '../support/audio-catalogue.ts';
import { type Harness, post, startHarness } from '../support/harness.ts';
import { ROUND_TRIP_SENTENCES, wordAccuracy } from '../support/word-errors.ts';

/** 0.01 USD a second (audio-catalogue.ts): 10,000 micro-USD. */
const PER_SECOND = 10_000;

// Sentences each flite voice below says clearly enough for pocketsphinx's model (measured: scripts/bench-audio.ts).
const SPOKEN = [1, 2, 3, 4, 7].map((i) => ROUND_TRIP_SENTENCES[i]).join(' ');

let h: Harness;
let media: http.Server;
let mediaUrl: string;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lagoon-stt-test-'));
const files: Record<string, Buffer> = {};

before(async () => {
  h = await startHarness({
    env: { LAGOON_FETCH_ALLOW_HOSTS: '127.0.0.1' },
    models: [fliteModel(), sphinxModel(), sphinxModel({ id: 'asr-small', traits: [], audio: { max_file_bytes: 20_000, max_duration_seconds: 2 } })],
  });
  const { key } = await h.newAccount({ usd: 100 });
  const say = async (input: string, format: string, voice = 'rms') => {
    const res = await fetch(`${h.base}/audio/speech`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({ input, voice, response_format: format }),
    });
    assert.equal(res.status, 200);
    return Buffer.from(await res.arrayBuffer());
  };
  files.hello = await say('Good morning everyone.', 'wav');
  files.mp3 = await say('Good morning everyone.', 'mp3');
  files.ogg = await say('Good morning everyone.', 'opus');
  files.flac = await say('Good morning everyone.', 'flac');
  files.threeSeconds = await say('Good morning everyone, and welcome to the show tonight.', 'opus');
  // Containers the speech endpoint does not make: ffmpeg wraps the same audio, with a video track for the media URL.
  fs.writeFileSync(path.join(dir, 'hello.wav'), files.hello);
  const ff = (...args: string[]) => execFileSync('ffmpeg', ['-nostdin', '-loglevel', 'error', '-y', ...args]);
  ff('-i', path.join(dir, 'hello.wav'), '-c:a', 'aac', '-b:a', '64k', path.join(dir, 'hello.m4a'));
  ff('-i', path.join(dir, 'hello.wav'), '-c:a', 'libopus', '-b:a', '32k', path.join(dir, 'hello.webm'));
  ff(
    '-f',
    'lavfi',
    '-i',
    'color=c=blue:s=64x64:r=5',
    '-i',
    path.join(dir, 'hello.wav'),
    '-shortest',
    '-c:v',
    'libx264',
    '-pix_fmt',
    'yuv420p',
    '-c:a',
    'aac',
    path.join(dir, 'talk.mp4'),
  );
  ff('-f', 'lavfi', '-i', 'color=c=red:s=64x64:r=5', '-t', '1', '-c:v', 'libx264', '-pix_fmt', 'yuv420p', path.join(dir, 'silent.mp4'));
  for (const f of ['m4a', 'webm']) files[f] = fs.readFileSync(path.join(dir, `hello.${f}`));
  media = http.createServer((req, res) => {
    const name = req.url?.slice(1) ?? '';
    if (name === 'page.html') {
      res.writeHead(200, { 'content-type': 'text/html' });
      return res.end('<!doctype html><html><body><video src="talk.mp4"></video></body></html>');
    }
    const file = path.join(dir, name);
    if (!/^[a-z]+\.(mp4|wav|m4a|webm)$/.test(name) || !fs.existsSync(file)) {
      res.writeHead(404);
      return res.end();
    }
    res.writeHead(200, { 'content-type': name.endsWith('.mp4') ? 'video/mp4' : 'application/octet-stream' });
    res.end(fs.readFileSync(file));
  });
  await new Promise<void>((r) => media.listen(0, '127.0.0.1', r));
  mediaUrl = `http://127.0.0.1:${(media.address() as AddressInfo).port}`;
});
after(async () => {
  await h?.close();
  media?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function transcribe(key: string | undefined, file: Buffer | undefined, fields: Record<string, string | string[]> = {}, filename = 'audio.bin') {
  const form = new FormData();
  if (file) form.append('file', new Blob([new Uint8Array(file)]), filename);
  for (const [k, v] of Object.entries(fields)) for (const one of Array.isArray(v) ? v : [v]) form.append(k, one);
  const res = await fetch(`${h.base}/audio/transcriptions`, { method: 'POST', headers: key ? { authorization: `Bearer ${key}` } : {}, body: form });
  const text = await res.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

const usageRows = async (accountId: string) => {
  await h.svc.ledger.drain();
  return h.svc.store.all<any>('SELECT * FROM usage WHERE account_id = $1 ORDER BY created_at, request_id', [accountId]);
};

describe('POST /audio/transcriptions (pocketsphinx)', () => {
  test('round trip: our own speech, transcribed, with word accuracy of at least 80 % (slt and rms voices)', async () => {
    const { key } = await h.newAccount({ usd: 10 });
    for (const voice of ['slt', 'rms']) {
      const speech = await fetch(`${h.base}/audio/speech`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: JSON.stringify({ input: SPOKEN, voice, response_format: 'flac' }),
      });
      const r = await transcribe(key, Buffer.from(await speech.arrayBuffer()), { timestamps: 'true' }, `${voice}.flac`);
      assert.equal(r.status, 200, r.text);
      const accuracy = wordAccuracy(SPOKEN, r.json.text);
      assert.ok(accuracy >= 0.8, `${voice}: ${(accuracy * 100).toFixed(1)} % — "${r.json.text}"`);
      const { word, segment } = r.json.timestamps;
      assert.ok(word.length >= 40 && segment.length >= 2, `${word.length} words in ${segment.length} segments`);
      for (const [i, w] of word.entries()) {
        assert.ok(w.start < w.end && w.end <= r.json.duration + 0.05, `word ${i} ${JSON.stringify(w)} within ${r.json.duration} s`);
        if (i) assert.ok(w.start >= word[i - 1].end, 'words in order');
      }
      assert.equal(segment.map((s: any) => s.text).join(' '), r.json.text);
    }
  });

  test('containers: WAV, MP3, OGG/Opus, FLAC, M4A and WEBM all decode and are heard; billed by the started second', async () => {
    const { key, accountId } = await h.newAccount({ usd: 10 });
    for (const [kind, bytes] of Object.entries({ wav: files.hello, mp3: files.mp3, ogg: files.ogg, flac: files.flac, m4a: files.m4a, webm: files.webm })) {
      // A misleading name changes nothing: the content decides.
      const r = await transcribe(key, bytes, {}, 'recording.txt');
      assert.equal(r.status, 200, `${kind}: ${r.text}`);
      assert.ok(wordAccuracy('good morning everyone', r.json.text) >= 0.66, `${kind}: "${r.json.text}"`);
      assert.ok(r.json.duration > 1 && r.json.duration < 3, `${kind}: ${r.json.duration} s`);
      assert.equal(r.json.timestamps, undefined);
      assert.equal(r.headers.get('x-service-model-id'), 'asr-pocketsphinx');
    }
    const rows = await usageRows(accountId);
    assert.equal(rows.length, 6);
    for (const row of rows) {
      assert.deepEqual([row.endpoint, row.unit], ['/audio/transcriptions', 'second']);
      assert.ok(Number(row.quantity) >= 2 && Number(row.quantity) <= 3, `${row.quantity} s`);
      assert.equal(Number(row.usd), Number(row.quantity) * PER_SECOND);
    }
    const b = await h.svc.ledger.balances(accountId);
    assert.deepEqual([b.usd, b.usdHeld], [10_000_000 - rows.reduce((n, r) => n + Number(r.usd), 0), 0]);
  });

  test('answer formats: text, OpenAI verbose_json (words when asked), srt, vtt', async () => {
    const { key } = await h.newAccount();
    const text = await transcribe(key, files.hello, { response_format: 'text' });
    assert.equal(text.status, 200);
    assert.match(text.headers.get('content-type') ?? '', /^text\/plain/);
    assert.match(text.text, /morning/);
    const verbose = await transcribe(key, files.hello, { response_format: 'verbose_json', 'timestamp_granularities[]': ['word', 'segment'] });
    assert.equal(verbose.status, 200, verbose.text);
    assert.deepEqual([verbose.json.task, verbose.json.language], ['transcribe', 'english']);
    assert.ok(verbose.json.words.length >= 2 && verbose.json.segments.length >= 1);
    assert.deepEqual(Object.keys(verbose.json.segments[0]).slice(0, 5), ['id', 'seek', 'start', 'end', 'text']);
    const srt = await transcribe(key, files.hello, { response_format: 'srt' });
    assert.match(srt.text, /^1\n00:00:0\d,\d{3} --> 00:00:0\d,\d{3}\n.*morning/);
    const vtt = await transcribe(key, files.hello, { response_format: 'vtt' });
    assert.match(vtt.text, /^WEBVTT\n\n00:00:0\d\.\d{3} --> /);
  });

  test('the openai client: audio.transcriptions.create, json, verbose_json with timestamp_granularities, and text', async () => {
    const { key } = await h.newAccount();
    const client = new OpenAI({ apiKey: key, baseURL: h.base, maxRetries: 0 });
    const plain = await client.audio.transcriptions.create({ model: 'asr-pocketsphinx', file: await toFile(files.mp3, 'hello.mp3') });
    assert.match(plain.text, /morning/);
    const verbose = await client.audio.transcriptions.create({
      model: 'asr-pocketsphinx',
      file: await toFile(files.hello, 'hello.wav'),
      response_format: 'verbose_json',
      timestamp_granularities: ['word', 'segment'],
      language: 'en',
    });
    assert.ok(verbose.duration > 1);
    assert.ok((verbose.words ?? []).some((w) => w.word === 'morning'));
    assert.ok((verbose.segments ?? []).length >= 1);
    const text = await client.audio.transcriptions.create({ model: 'asr-pocketsphinx', file: await toFile(files.hello, 'hello.wav'), response_format: 'text' });
    assert.match(String(text), /morning/);
    await assert.rejects(client.audio.transcriptions.create({ model: 'tts-flite', file: await toFile(files.hello, 'hello.wav') }), OpenAI.BadRequestError);
  });

  test("413 over 25 MB (or a model's smaller limit), 422 for no audio, 400 for what is not audio — none of it charged", async () => {
    const { key, accountId } = await h.newAccount();
    const huge = await transcribe(key, Buffer.alloc(26 * 1024 * 1024, 1));
    assert.deepEqual([huge.status, huge.json.code], [413, 'PAYLOAD_TOO_LARGE']);
    const small = await transcribe(key, files.hello, { model: 'asr-small' });
    assert.deepEqual([small.status, small.json.code], [413, 'PAYLOAD_TOO_LARGE']);
    assert.match(small.json.error, /asr-small/);
    const empty = await transcribe(key, Buffer.alloc(0));
    assert.deepEqual([empty.status, empty.json.code], [422, 'EMPTY_AUDIO']);
    const header = Buffer.from(files.hello.subarray(0, 44));
    header.writeUInt32LE(36, 4);
    header.writeUInt32LE(0, 40);
    const silent = await transcribe(key, header);
    assert.deepEqual([silent.status, silent.json.code], [422, 'EMPTY_AUDIO']);
    const cases: [Buffer | undefined, Record<string, string>, number, string, RegExp][] = [
      [Buffer.from('just some text, not audio'), {}, 400, 'UNSUPPORTED_FILE', /not an audio type this endpoint accepts \(WAV, FLAC, MP3/],
      [Buffer.concat([Buffer.from('ID3\x04\0\0\0\0\0\0'), Buffer.alloc(2000, 0x5a)]), {}, 400, 'CORRUPTED_FILE', /could not be decoded as audio/],
      [undefined, {}, 400, 'INVALID_REQUEST', /file is required/],
      [files.hello, { response_format: 'xml' }, 400, 'INVALID_REQUEST', /response_format/],
      [files.hello, { 'timestamp_granularities[]': 'char' }, 400, 'INVALID_REQUEST', /timestamp_granularities/],
      [files.hello, { stream: 'true' }, 400, 'INVALID_REQUEST', /Streamed transcription is not offered/],
      [files.hello, { colour: 'blue' }, 400, 'INVALID_REQUEST', /Unrecognized key\(s\): colour/],
      [files.hello, { model: 'tts-flite' }, 400, 'INVALID_MODEL', /not a transcription \(asr\) model/],
      [fs.readFileSync(path.join(dir, 'talk.mp4')), { model: 'asr-small' }, 413, 'PAYLOAD_TOO_LARGE', /asr-small/],
    ];
    for (const [file, fields, status, code, message] of cases) {
      const r = await transcribe(key, file, fields);
      assert.equal(r.status, status, `${JSON.stringify(fields)} → ${r.text}`);
      assert.equal(r.json.code, code);
      assert.match(r.json.error, message);
    }
    const json = await post(h, '/audio/transcriptions', key, { file: 'x' });
    assert.equal(json.status, 415);
    assert.deepEqual(await usageRows(accountId), []);
    assert.equal((await h.svc.ledger.balances(accountId)).usdHeld, 0);
  });

  test('audio longer than the model takes is a 400; without credit for its seconds, a 402', async () => {
    const short = await h.newAccount();
    assert.ok(files.threeSeconds.length < 20_000, `${files.threeSeconds.length} bytes`);
    const long = await transcribe(short.key, files.threeSeconds, { model: 'asr-small' });
    assert.deepEqual([long.status, long.json.code], [400, 'INVALID_REQUEST']);
    assert.match(long.json.error, /longer than 2 seconds/);
    const { key, accountId } = await h.newAccount({ usd: 0.01 });
    const broke = await transcribe(key, files.hello);
    assert.deepEqual([broke.status, broke.json.code], [402, 'INSUFFICIENT_BALANCE']);
    assert.deepEqual(await usageRows(accountId), []);
    // No credit at all: the 402 comes before any decoding (a file that only looks like WAV would fail to decode).
    const none = await h.newAccount({ usd: 0 });
    const fake = Buffer.concat([Buffer.from('RIFF'), Buffer.from([0xff, 0xff, 0, 0]), Buffer.from('WAVEfmt '), Buffer.alloc(4096, 7)]);
    const refused = await transcribe(none.key, fake);
    assert.deepEqual([refused.status, refused.json.code], [402, 'INSUFFICIENT_BALANCE']);
  });
});

describe('POST /video/transcriptions', () => {
  test('a media file by URL: fetched safely, its audio transcribed, billed by the second', async () => {
    const { key, accountId } = await h.newAccount();
    const r = await post(h, '/video/transcriptions', key, { url: `${mediaUrl}/talk.mp4` });
    assert.equal(r.status, 200, r.text);
    assert.match(r.json.transcript, /morning/);
    assert.equal(r.json.lang, 'en');
    const text = await post(h, '/video/transcriptions', key, { url: `${mediaUrl}/hello.webm`, response_format: 'text' });
    assert.equal(text.status, 200);
    assert.match(text.headers.get('content-type') ?? '', /^text\/plain/);
    assert.match(text.text, /morning/);
    const rows = await usageRows(accountId);
    assert.deepEqual(
      rows.map((row) => [row.endpoint, row.unit, Number(row.quantity) > 0]),
      [
        ['/video/transcriptions', 'second', true],
        ['/video/transcriptions', 'second', true],
      ],
    );
  });

  test('pages of video sites, web pages, missing and silent media: clear 4xx, nothing charged', async () => {
    const { key, accountId } = await h.newAccount();
    const cases: [Record<string, unknown>, number, string, RegExp][] = [
      [{ url: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ' }, 400, 'INVALID_REQUEST', /needs a site-specific downloader/],
      [{ url: 'https://youtu.be/dQw4w9WgXcQ' }, 400, 'INVALID_REQUEST', /needs a site-specific downloader/],
      [{ url: `${mediaUrl}/page.html` }, 400, 'INVALID_REQUEST', /web page, not a media file/],
      [{ url: `${mediaUrl}/missing.mp4` }, 400, 'INVALID_REQUEST', /HTTP 404/],
      [{ url: `${mediaUrl}/silent.mp4` }, 400, 'CORRUPTED_FILE', /no audio track/],
      [{ url: 'ftp://example.com/a.mp4' }, 400, 'INVALID_REQUEST', /http/],
      [{}, 400, 'INVALID_REQUEST', /url is required/],
      [{ url: `${mediaUrl}/talk.mp4`, response_format: 'srt' }, 400, 'INVALID_REQUEST', /response_format/],
      [{ url: `${mediaUrl}/talk.mp4`, model: 'tts-flite' }, 400, 'INVALID_MODEL', /not a transcription/],
    ];
    for (const [body, status, code, message] of cases) {
      const r = await post(h, '/video/transcriptions', key, body);
      assert.equal(r.status, status, `${JSON.stringify(body)} → ${r.text}`);
      assert.equal(r.json.code, code);
      assert.match(r.json.error, message);
    }
    assert.deepEqual(await usageRows(accountId), []);
  });
});

describe('chat: input_audio for a model without audio input', () => {
  test('is transcribed into the prompt, as a file would be extracted', async () => {
    const { key } = await h.newAccount();
    const r = await post(h, '/chat/completions', key, {
      model: 'plain-model',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: '[[echo_request]]' },
            { type: 'input_audio', input_audio: { data: files.hello.toString('base64'), format: 'wav' } },
          ],
        },
      ],
    });
    assert.equal(r.status, 200, r.text);
    const sent = JSON.parse(r.json.choices[0].message.content);
    const user = sent.at(-1).content as string;
    assert.match(user, /\[Audio transcript \(wav\)\]\n.*morning.*\n\[End of audio transcript\]/);
    const bad = await post(h, '/chat/completions', key, {
      model: 'plain-model',
      messages: [{ role: 'user', content: [{ type: 'input_audio', input_audio: { data: Buffer.from('not audio').toString('base64'), format: 'mp3' } }] }],
    });
    assert.deepEqual([bad.status, bad.json.code], [400, 'UNSUPPORTED_FILE']);
  });
});

describe('a server without pocketsphinx', () => {
  test('says so at start and answers 503 for that model, charging nothing', async () => {
    const bare: Harness = await startHarness({ models: [sphinxModel()], env: { LAGOON_POCKETSPHINX_PATH: '/nonexistent/pocketsphinx_continuous' } });
    await bare.svc.audio.ready;
    // What the start logs, one warning line each.
    const warned = bare.svc.audio.notes;
    try {
      assert.ok(
        warned.some((l) => /pocketsphinx is not installed .*asr-pocketsphinx answers 503/.test(l)),
        warned.join('\n'),
      );
      const { key, accountId } = await bare.newAccount();
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(files.hello)]), 'a.wav');
      const res = await fetch(`${bare.base}/audio/transcriptions`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form });
      assert.equal(res.status, 503);
      const body = (await res.json()) as any;
      assert.equal(body.code, 'ENGINE_UNAVAILABLE');
      assert.match(body.error, /asr-pocketsphinx is unavailable on this server: pocketsphinx is not installed/);
      await bare.svc.ledger.drain();
      assert.deepEqual(await bare.svc.store.all('SELECT * FROM usage WHERE account_id = $1', [accountId]), []);
    } finally {
      await bare.close();
    }
  });
});
