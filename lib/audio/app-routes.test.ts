// Read-aloud, dictation and audio attachments on a real service with the local engines (flite, ffmpeg, pocketsphinx):
// the options the page offers; speech streamed as MP3 and billed per character to the signed-in user's account;
// a recording of our own speech transcribed back (word accuracy ≥ 80 %) and billed per second; sessions, CSRF and
// bad input refused before anything is billed; 402 without credit and 429 past the rate limit; an audio attachment
// written down once into the prompt, and refused before anything is stored when its bytes or length are wrong; and in
// remote mode both are said to be unavailable. Billing rows on SQLite and PostgreSQL.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fliteModel, sphinxModel } from '../../e2e/support/audio-catalogue.ts';
import { type Harness, startHarness } from '../../e2e/support/harness.ts';
import { createTestDatabase } from '../../e2e/support/pg.ts';
import { ROUND_TRIP_SENTENCES, wordAccuracy } from '../../e2e/support/word-errors.ts';
import { accountKeys } from '../auth/keys.ts';
import { grantUsd } from '../billing/ledger.ts';
import { toMicros } from '../billing/money.ts';
import { userConversations } from '../conversations/conversations.ts';
import { createSession, SESSION_COOKIE } from '../users/sessions.ts';
import { signUp, type User } from '../users/users.ts';
import type { AttachmentLimits, SendMessageResponse } from '../wire.ts';
import type { AudioOptions, DictationResult } from './wire.ts';
import { audioRoutes } from './app-routes.ts';
import { appRequest, assertNoKeyMaterial, type Browser, caller, storedSecrets } from '../../e2e/support/app-requests.ts';

/** The test catalogue's prices: 1 USD per 1,000 characters (1,000 micro-USD each), 0.01 USD a second. */
const PER_CHARACTER = 1_000;
const PER_SECOND = 10_000;
const SPOKEN = ROUND_TRIP_SENTENCES[1];

let seq = 0;
const isMp3 = (b: Buffer) => b.subarray(0, 3).toString('latin1') === 'ID3' || (b[0] === 0xff && (b[1] & 0xe0) === 0xe0);

interface TestUser {
  user: User;
  browser: Browser;
}

/** A WAV of `seconds` of silence (8 kHz mono 16-bit). */
function silentWav(seconds: number): Buffer {
  const data = Buffer.alloc(seconds * 8000 * 2);
  const h = Buffer.alloc(44);
  h.write('RIFF', 0, 'latin1');
  h.writeUInt32LE(36 + data.length, 4);
  h.write('WAVEfmt ', 8, 'latin1');
  h.writeUInt32LE(16, 16);
  h.writeUInt16LE(1, 20);
  h.writeUInt16LE(1, 22);
  h.writeUInt32LE(8000, 24);
  h.writeUInt32LE(16000, 28);
  h.writeUInt16LE(2, 32);
  h.writeUInt16LE(16, 34);
  h.write('data', 36, 'latin1');
  h.writeUInt32LE(data.length, 40);
  return Buffer.concat([h, data]);
}

for (const backend of ['sqlite', 'postgres'] as const)
  describe(`audio app routes (${backend})`, () => {
    const full = backend === 'sqlite';
    let h: Harness;
    let drop: (() => Promise<void>) | undefined;
    let routes: NonNullable<Harness['app']>['routes'];
    let call: ReturnType<typeof caller>;
    let alice: TestUser;
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lagoon-app-audio-'));

    before(async () => {
      let databaseUrl: string | undefined;
      if (backend === 'postgres') ({ url: databaseUrl, drop } = await createTestDatabase());
      h = await startHarness({
        app: true,
        databaseUrl,
        models: [fliteModel(), sphinxModel({ audio: { languages: ['en'], max_file_bytes: 400_000 } })],
        limits: { windowSeconds: 60, audio: { default: { rpm: 6 } } },
      });
      routes = h.app!.routes;
      call = caller(h.svc.store);
      alice = await newUser(5);
    });
    after(async () => {
      await h?.close();
      await drop?.();
      fs.rmSync(dir, { recursive: true, force: true });
    });

    async function newUser(usd: number): Promise<TestUser> {
      const { user } = await signUp(h.svc.store, { email: `audio${++seq}-${process.pid}@example.test`, password: 'correct horse battery staple' });
      if (usd > 0) await grantUsd(h.svc.store, user.accountId, toMicros(usd));
      const s = await createSession(h.svc.store, user.id);
      return { user, browser: { ip: '192.0.2.40', cookie: `${SESSION_COOKIE}=${s.token}`, csrf: s.csrfToken } };
    }

    /** POST /audio/speech, its body as bytes (scanned for key material like every other answer). */
    async function speak(u: TestUser | undefined, body: unknown, o: { noCsrf?: boolean; headers?: Record<string, string> } = {}) {
      const req = appRequest('/audio/speech', { method: 'POST', body, browser: u?.browser, ...o });
      const res = await routes.audioSpeech(req, {}, { ip: '192.0.2.40' });
      const parts: Uint8Array[] = [];
      const reader = res.body!.getReader();
      for (let r = await reader.read(); !r.done; r = await reader.read()) parts.push(r.value);
      const bytes = Buffer.concat(parts);
      const type = res.headers.get('content-type') ?? '';
      assertNoKeyMaterial(JSON.stringify([...res.headers]), await storedSecrets(h.svc.store), 'POST /audio/speech');
      return {
        status: res.status,
        headers: res.headers,
        type,
        bytes,
        chunks: parts.length,
        json: type.includes('json') ? JSON.parse(bytes.toString()) : undefined,
      };
    }

    /** POST /audio/transcriptions with the recording as the body. */
    async function dictate(u: TestUser | undefined, bytes: Buffer, type: string, o: { noCsrf?: boolean } = {}) {
      const base = appRequest('/audio/transcriptions', { method: 'POST', browser: u?.browser, noCsrf: o.noCsrf });
      const headers = new Headers(base.headers);
      headers.set('content-type', type);
      const res = await routes.audioDictation(new Request(base.url, { method: 'POST', headers, body: new Uint8Array(bytes) }), {}, { ip: '192.0.2.40' });
      const text = await res.text();
      assertNoKeyMaterial(text, await storedSecrets(h.svc.store), 'POST /audio/transcriptions');
      return { status: res.status, json: JSON.parse(text) };
    }

    const usageRows = async (u: TestUser) => {
      await h.svc.ledger.drain();
      return h.svc.store.all<any>('SELECT * FROM usage WHERE account_id = $1 ORDER BY created_at, request_id', [u.user.accountId]);
    };
    const balance = async (u: TestUser) => (await h.svc.ledger.balances(u.user.accountId)).usd;

    /** SPOKEN in the rms voice, as MP3 (made once, through the speech route). */
    let spokenMp3: Buffer | undefined;
    async function spoken(): Promise<Buffer> {
      if (!spokenMp3) {
        const r = await speak(alice, { text: SPOKEN, voice: 'rms' });
        assert.equal(r.status, 200);
        spokenMp3 = r.bytes;
      }
      return spokenMp3;
    }

    if (full)
      test('options: the default speech and transcription models, the voices in words (not the talking clock), the prices', async () => {
        const r = await call(routes.audioOptions, '/audio/options', { browser: alice.browser });
        assert.equal(r.status, 200, r.text);
        const o = r.json as AudioOptions;
        assert.equal(o.unavailable, null);
        assert.deepEqual(
          o.speech?.voices.map((v) => v.id),
          ['slt', 'rms', 'awb', 'kal16', 'kal'],
        );
        assert.match(o.speech!.voices[0].label, /female/);
        assert.deepEqual([o.speech!.model, o.speech!.defaultVoice, o.speech!.per1kCharactersUsd, o.speech!.maxCharacters], ['tts-flite', 'slt', 1, 4096]);
        assert.deepEqual([o.dictation!.model, o.dictation!.maxBytes, o.dictation!.perSecondUsd], ['asr-pocketsphinx', 400_000, 0.01]);
        assert.equal((await call(routes.audioOptions, '/audio/options')).status, 401, 'signed out');
      });

    test('speech: MP3 streamed as it is made, billed per character to the user, through the browser key', async () => {
      const before = await balance(alice);
      const text = 'Hello there. This answer is read aloud, sentence by sentence.';
      const r = await speak(alice, { text, voice: 'rms', speed: 1.25 });
      assert.equal(r.status, 200, r.bytes.toString().slice(0, 300));
      assert.equal(r.type, 'audio/mpeg');
      assert.ok(isMp3(r.bytes) && r.bytes.length > 4000, `an MP3 of the text (${r.bytes.length} bytes)`);
      assert.ok(r.chunks > 1, `sent in pieces as the sentences were made (${r.chunks})`);
      const rows = (await usageRows(alice)).filter((row) => row.endpoint === '/audio/speech');
      assert.equal(rows.length, 1);
      const browserKey = await accountKeys(h.svc.store, alice.user.accountId).browserKey();
      assert.deepEqual([rows[0].unit, Number(rows[0].quantity), rows[0].model_id, rows[0].key_id], ['character', text.length, 'tts-flite', browserKey?.id]);
      assert.equal(Number(rows[0].usd), text.length * PER_CHARACTER);
      assert.equal(await balance(alice), before - text.length * PER_CHARACTER);
    });

    if (full)
      test('speech: a listener who stops midway pays for the sentences made, not the rest', async () => {
        const listener = await newUser(1);
        const text = Array.from({ length: 12 }, (_, i) => `This is sentence number ${i + 1} of a long answer.`).join(' ');
        const ctl = new AbortController();
        const req = appRequest('/audio/speech', { method: 'POST', body: { text }, browser: listener.browser });
        const res = await routes.audioSpeech(new Request(req, { signal: ctl.signal }), {}, { ip: '192.0.2.40' });
        assert.equal(res.status, 200);
        const reader = res.body!.getReader();
        assert.ok(!(await reader.read()).done, 'the first audio arrived');
        // The browser's stop: the request is aborted and the body cancelled, as the HTTP layer does on a closed socket.
        ctl.abort();
        await reader.cancel();
        let rows: any[] = [];
        for (let i = 0; i < 100 && !rows.length; i++) {
          rows = await usageRows(listener);
          if (!rows.length) await new Promise((r) => setTimeout(r, 50));
        }
        assert.equal(rows.length, 1, 'the sentences made are billed once');
        const billed = Number(rows[0].quantity);
        assert.ok(billed > 0 && billed < text.length, `${billed} of ${text.length} characters billed`);
        assert.equal(Number(rows[0].usd), billed * PER_CHARACTER);
        assert.equal((await h.svc.ledger.balances(listener.user.accountId)).usdHeld, 0, 'nothing left held');
      });

    if (full)
      test('speech: a session and its CSRF token are required; bad input is a 400 naming the field; nothing is billed', async () => {
        const before = await balance(alice);
        const rowsBefore = (await usageRows(alice)).length;
        assert.equal((await speak(undefined, { text: 'Hi.' })).status, 401);
        assert.equal((await speak(alice, { text: 'Hi.' }, { noCsrf: true })).status, 403);
        const bad: [unknown, string][] = [
          [{ text: '   ' }, 'text'],
          [{}, 'text'],
          [{ text: 'x'.repeat(4097) }, 'text'],
          [{ text: 'Hi.', voice: 'nobody' }, 'voice'],
          [{ text: 'Hi.', speed: 3 }, 'speed'],
          [{ text: 'Hi.', model: 'tts-flite' }, 'model'],
        ];
        for (const [body, field] of bad) {
          const r = await speak(alice, body);
          assert.equal(r.status, 400, JSON.stringify(body));
          const named = r.json.param === field || (r.json.issues ?? []).some((i: any) => i.path?.[0] === field || i.keys?.includes(field));
          assert.ok(named, `${JSON.stringify(body)} names ${field}: ${JSON.stringify(r.json)}`);
        }
        assert.equal((await speak(alice, 'text=Hi', { headers: { 'content-type': 'text/plain' } })).status, 415);
        assert.equal(await balance(alice), before);
        assert.equal((await usageRows(alice)).length, rowsBefore);
      });

    if (full)
      test('speech: no credit is a 402; past the rate limit a 429 with Retry-After; neither is billed', async () => {
        const broke = await newUser(0);
        const r = await speak(broke, { text: 'Nothing to pay with.' });
        assert.equal(r.status, 402, JSON.stringify(r.json));
        assert.deepEqual(await usageRows(broke), []);

        const busy = await newUser(1);
        let limited: Awaited<ReturnType<typeof speak>> | undefined;
        for (let i = 0; i < 7 && !limited; i++) {
          const res = await speak(busy, { text: 'Hi.' });
          if (res.status === 429) limited = res;
          else assert.equal(res.status, 200);
        }
        assert.ok(limited, 'the 7th request within the minute is refused');
        assert.equal(limited.json.code, 'RATE_LIMIT_EXCEEDED');
        assert.ok(Number(limited.headers.get('retry-after')) > 0, 'Retry-After says when');
        assert.equal((await usageRows(busy)).length, 6);
      });

    test('dictation: a recording of a spoken sentence comes back as its text, billed per started second', async () => {
      // As a browser records it: Opus in WebM.
      fs.writeFileSync(path.join(dir, 'said.mp3'), await spoken());
      execFileSync('ffmpeg', [
        '-nostdin',
        '-loglevel',
        'error',
        '-y',
        '-i',
        path.join(dir, 'said.mp3'),
        '-c:a',
        'libopus',
        '-b:a',
        '32k',
        path.join(dir, 'said.webm'),
      ]);
      const before = await balance(alice);
      const r = await dictate(alice, fs.readFileSync(path.join(dir, 'said.webm')), 'audio/webm;codecs=opus');
      assert.equal(r.status, 200, JSON.stringify(r.json));
      const result = r.json as DictationResult;
      assert.ok(wordAccuracy(SPOKEN, result.text) >= 0.8, `"${result.text}" is "${SPOKEN}"`);
      assert.ok(result.seconds >= 2 && result.seconds <= 6, `${result.seconds} s`);
      assert.equal(result.costUsd, (result.seconds * PER_SECOND) / 1e6);
      const row = (await usageRows(alice)).filter((x) => x.endpoint === '/audio/transcriptions').at(-1);
      assert.deepEqual([row.unit, Number(row.quantity), Number(row.usd)], ['second', result.seconds, result.seconds * PER_SECOND]);
      assert.equal(await balance(alice), before - result.seconds * PER_SECOND);
    });

    if (full)
      test('dictation: bad input is refused before anything is billed (415, 400, 422, 413, 401, 403)', async () => {
        const before = await balance(alice);
        const rowsBefore = (await usageRows(alice)).length;
        const expect = async (p: Promise<{ status: number; json: any }>, status: number, code?: string) => {
          const r = await p;
          assert.equal(r.status, status, JSON.stringify(r.json));
          if (code) assert.equal(r.json.code, code);
          return r.json;
        };
        await expect(dictate(alice, Buffer.from('hello'), 'text/plain'), 415, 'INVALID_CONTENT_TYPE');
        await expect(dictate(alice, Buffer.from('%PDF-1.4 not audio at all'), 'audio/webm'), 400, 'UNSUPPORTED_FILE');
        await expect(dictate(alice, Buffer.alloc(0), 'audio/webm'), 422, 'EMPTY_AUDIO');
        await expect(dictate(alice, Buffer.alloc(500_000, 1), 'audio/webm'), 413);
        await expect(dictate(undefined, silentWav(1), 'audio/wav'), 401);
        await expect(dictate(alice, silentWav(1), 'audio/wav', { noCsrf: true }), 403);
        // A damaged file: a WAV header over nothing decodable.
        await expect(dictate(alice, Buffer.concat([silentWav(1).subarray(0, 12), Buffer.alloc(64, 7)]), 'audio/wav'), 400);
        assert.equal(await balance(alice), before);
        assert.equal((await usageRows(alice)).length, rowsBefore);
      });

    if (full)
      test('attachments: audio is offered, transcribed once into the prompt, and refused before storing when wrong', async () => {
        const limits = (await call(routes.limits, '/limits', { browser: alice.browser })).json as AttachmentLimits;
        assert.deepEqual(limits.audioTypes, ['audio/wav', 'audio/mpeg', 'audio/mp4', 'audio/ogg', 'audio/webm', 'audio/flac']);
        assert.equal(limits.maxAudioSeconds, 300);
        assert.match(limits.accept, /\.mp3/);
        assert.match(limits.accept, /\.m4a/);

        const mp3 = await spoken();
        const c = await userConversations(h.svc.store, alice.user.id).create({});
        const send = (attachments: unknown[], content = 'What did I say?') =>
          call(
            routes.sendMessage,
            `/conversations/${c.id}/messages`,
            { method: 'POST', browser: alice.browser, body: { parentId: null, content, attachments } },
            { id: c.id },
          );
        const dataUrl = (type: string, b: Buffer) => `data:${type};base64,${b.toString('base64')}`;

        // Refused before anything is stored: bytes that are not the declared type, audio longer than five minutes.
        const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
        const wrong = await send([{ name: 'memo.mp3', type: 'audio/mpeg', dataUrl: dataUrl('audio/mpeg', png) }]);
        assert.deepEqual([wrong.status, wrong.json.code, wrong.json.param], [400, 'CORRUPTED_FILE', 'attachments.0']);
        const longFile = path.join(dir, 'long.ogg');
        execFileSync('ffmpeg', [
          '-nostdin',
          '-loglevel',
          'error',
          '-y',
          '-f',
          'lavfi',
          '-i',
          'anullsrc=r=16000:cl=mono',
          '-t',
          '301',
          '-c:a',
          'libopus',
          '-b:a',
          '6k',
          longFile,
        ]);
        const long = await send([{ name: 'long.ogg', type: 'audio/ogg', dataUrl: dataUrl('audio/ogg', fs.readFileSync(longFile)) }]);
        assert.equal(long.status, 400, long.text);
        assert.match(long.json.error, /"long\.ogg": The audio is longer than 300 seconds, the most an attachment may last/);
        assert.equal(long.json.param, 'attachments.0');
        assert.equal((await userConversations(h.svc.store, alice.user.id).withPath(c.id)).messages.length, 0, 'nothing stored');

        const ok = await send([{ name: 'said.mp3', type: 'audio/mp3', dataUrl: dataUrl('audio/mp3', mp3) }]);
        assert.equal(ok.status, 201, ok.text);
        const sent = ok.json as SendMessageResponse;
        assert.deepEqual(
          sent.user.attachments.map((a) => [a.name, a.type, a.kind]),
          [['said.mp3', 'audio/mpeg', 'document']],
        );
        assert.ok(!ok.text.includes(mp3.subarray(0, 30).toString('base64')), 'the audio never goes back to the browser');
        const prompt = async () => {
          for (let i = 0; i < 200 && !h.engine.requests.length; i++) await new Promise((r) => setTimeout(r, 25));
          const last = h.engine.requests.at(-1)?.body.messages.at(-1);
          return typeof last?.content === 'string' ? last.content : JSON.stringify(last?.content);
        };
        const text = await prompt();
        const transcript = /\[Audio transcript: said\.mp3\]\n([^[]*)\n\[End of audio transcript: said\.mp3\]/.exec(text)?.[1] ?? '';
        assert.ok(wordAccuracy(SPOKEN, transcript) >= 0.8, `the prompt carries the transcript: ${text}`);
        assert.match(text, /What did I say\?/);
        // Stored with the message: a regenerated answer reads the same words without transcribing again.
        const stored = (await userConversations(h.svc.store, alice.user.id).message(sent.user.id)).attachments[0] as { transcript?: string };
        assert.equal(stored.transcript, transcript);
      });

    if (full)
      test('remote mode: read-aloud and dictation are said to be unavailable, and refused', async () => {
        const remote = audioRoutes({
          svc: h.svc,
          app: { ...h.svc.config.app, remote: { baseUrl: 'http://127.0.0.1:9', apiKey: 'sk-test', wire: 'service' } },
        } as never);
        const o = (await call(remote.audioOptions, '/audio/options', { browser: alice.browser })).json as AudioOptions;
        assert.deepEqual([o.speech, o.dictation], [null, null]);
        assert.match(o.unavailable ?? '', /external API/);
        const r = await call(remote.audioSpeech, '/audio/speech', { method: 'POST', browser: alice.browser, body: { text: 'Hi.' } });
        assert.equal(r.status, 404);
      });
  });
