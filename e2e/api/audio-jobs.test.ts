// Long audio as jobs (/audio/quote, /audio/queue, /audio/retrieve, /audio/complete) through the real server: a text
// spoken by flite into one file, checked with ffprobe; the quote held while the job is open and charged exactly once;
// progress while a job waits on an upstream that holds a sentence (a loopback OpenAI audio API); cancellation
// refunds; 400s, 401/402, wallets; and a server killed with SIGKILL mid-job, whose restart finishes it once.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { grantUsd } from '../../lib/billing/ledger.ts';
import { openStore } from '../../lib/db/open.ts';
import { ensureWallet } from '../../lib/wallet/wallets.ts';
import { fliteModel, sphinxModel } from '../support/audio-catalogue.ts';
import { fakeTone } from '../support/audio-upstreams.ts';
import { get, type Harness, post, startHarness } from '../support/harness.ts';
import { type LoggedServer, startLoggedServer } from '../support/processes.ts';
import { evmWallet, signInHeader, walletEnv } from '../wallet/clients.ts';

const run = promisify(execFile);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** 1 USD per 1,000 characters: 1,000 micro-USD a character. */
const PER_CHAR = 1000;
const MAX_CHARS = 3000;

/** A text of about `n` characters in plain sentences (deterministic). */
function article(n: number): string {
  const lines = [
    'The lagoon was calm at dawn.',
    'Boats drifted slowly past the reef, and the gulls circled overhead.',
    'By noon the wind had turned, and the water grew dark and restless.',
    'The fishermen pulled their nets in early that day.',
  ];
  let text = '';
  for (let i = 0; text.length < n; i++) text += `${text ? ' ' : ''}${lines[i % lines.length]}`;
  return text;
}

/** A loopback OpenAI audio API whose speech (PCM tone) waits, for inputs marked [[hold]], until `release()`. */
interface HeldUpstream {
  url: string;
  inputs: string[];
  release(): void;
  close(): Promise<void>;
}

async function startHeldUpstream(): Promise<HeldUpstream> {
  const inputs: string[] = [];
  let released = false;
  const waiting = new Set<() => void>();
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    if (req.method !== 'POST' || req.url !== '/v1/audio/speech') return res.writeHead(404).end();
    const body = JSON.parse(Buffer.concat(chunks).toString());
    const input = String(body.input);
    inputs.push(input);
    if (input.includes('[[hold]]') && !released) {
      await new Promise<void>((resolve) => {
        waiting.add(resolve);
        res.once('close', resolve); // the server went away (cancelled, or killed)
      });
    }
    if (res.destroyed) return;
    res.writeHead(200, { 'content-type': 'audio/pcm' }).end(fakeTone(input));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    inputs,
    release() {
      released = true;
      for (const w of waiting) w();
      waiting.clear();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const heldModel = (baseUrl: string) => ({
  id: 'tts-held',
  name: 'Upstream speech',
  type: 'tts',
  tier: 'XS',
  pricing: { input_usd: 0, output_usd: 0, input_diem: 0, output_diem: 0, per_1k_characters_usd: 1 },
  context_length: 4096,
  engine: { kind: 'openai-audio', baseUrl },
});

interface Retrieved {
  status: number;
  headers: Headers;
  contentType: string;
  json?: any;
  bytes?: Buffer;
  progress: any[];
}

async function retrieveOnce(base: string, headers: Record<string, string>, body: Record<string, unknown>): Promise<Retrieved> {
  const res = await fetch(`${base}/audio/retrieve`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const contentType = res.headers.get('content-type') ?? '';
  const r = { status: res.status, headers: res.headers, contentType, progress: [] };
  if (contentType.startsWith('application/json')) return { ...r, json: await res.json() };
  return { ...r, bytes: Buffer.from(await res.arrayBuffer()) };
}

/** Polls retrieve until the answer is no longer PROCESSING. */
async function retrieveWhenDone(
  base: string,
  headers: () => Promise<Record<string, string>> | Record<string, string>,
  body: Record<string, unknown>,
): Promise<Retrieved> {
  const progress: any[] = [];
  for (let i = 0; i < 1200; i++) {
    const r = await retrieveOnce(base, await headers(), body);
    if (!(r.status === 200 && r.json?.status === 'PROCESSING')) return { ...r, progress };
    progress.push(r.json);
    await sleep(200);
  }
  throw new Error(`audio job ${body.queue_id} still processing`);
}

/** ffprobe's view of audio bytes. */
async function probeAudio(bytes: Buffer): Promise<{ duration: number; codec: string; sampleRate: number }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lagoon-audio-job-'));
  try {
    fs.writeFileSync(path.join(dir, 'a'), bytes);
    const { stdout } = await run('ffprobe', [
      '-v',
      'error',
      '-show_entries',
      'format=duration:stream=codec_name,sample_rate',
      '-of',
      'json',
      path.join(dir, 'a'),
    ]);
    const j = JSON.parse(stdout);
    return { duration: Number(j.format?.duration), codec: j.streams?.[0]?.codec_name, sampleRate: Number(j.streams?.[0]?.sample_rate) };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describe('audio jobs', () => {
  let h: Harness;
  let up: HeldUpstream;
  before(async () => {
    up = await startHeldUpstream();
    h = await startHarness({
      // One worker: a job queued behind a running one stays queued until it ends.
      env: { ...walletEnv({}), LAGOON_JOB_WORKERS: '1', LAGOON_AUDIO_QUEUE_MAX_CHARACTERS: String(MAX_CHARS) },
      // Polling every 150 ms outruns the Audio class's 60 a minute (which retrieve and queue each count apart).
      limits: { audio: { default: { rpm: 600 } } },
      models: [
        fliteModel(),
        fliteModel({ id: 'tts-wav-only', traits: [], audio: { voices: ['slt'], supported_formats: ['wav', 'pcm'], default_format: 'wav', languages: ['en'] } }),
        heldModel(up.url),
        sphinxModel(),
      ],
    });
  });
  after(async () => {
    up?.release();
    await h?.close();
    await up?.close();
  });

  const bearer = (key: string) => () => ({ authorization: `Bearer ${key}` });
  const balances = async (accountId: string) => {
    const b = await h.svc.ledger.balances(accountId);
    return { usd: b.usd, usdHeld: b.usdHeld };
  };
  const job = (id: string) => h.svc.store.get<any>('SELECT status, billing, attempts, state, error FROM jobs WHERE id = $1', [id]);
  const usage = (requestId: string) =>
    h.svc.store
      .all<any>('SELECT unit, quantity, usd, endpoint, model_id FROM usage WHERE request_id = $1', [requestId])
      .then((rows) => rows.map((x) => ({ ...x, quantity: Number(x.quantity), usd: Number(x.usd) })));
  /** The balance once the account's jobs are billed (a job's bill is settled just after it is marked done). */
  const settled = async (accountId: string) => {
    for (let i = 0; i < 200; i++) {
      const open = await h.svc.store.get<any>("SELECT COUNT(*) AS n FROM jobs WHERE account_id = $1 AND billing IN ('held', 'settling', 'releasing')", [
        accountId,
      ]);
      if (Number(open!.n) === 0) break;
      await sleep(25);
    }
    return balances(accountId);
  };

  test('quote, queue (held), retrieve: an mp3 of the whole text, billed exactly the quote; complete deletes it, then 404', async () => {
    const { key, accountId } = await h.newAccount({ usd: 10 });
    const text = article(1200);
    const n = text.length;
    const quote = await post(h, '/audio/quote', key, { model: 'tts-flite', character_count: n });
    assert.equal(quote.status, 200, quote.text);
    assert.deepEqual(quote.json, { quote: (n * PER_CHAR) / 1e6 });

    const q = await post(h, '/audio/queue', key, { model: 'tts-flite', prompt: text, voice: 'alloy' });
    assert.equal(q.status, 200, q.text);
    assert.deepEqual(Object.keys(q.json).sort(), ['model', 'queue_id', 'status']);
    assert.equal(q.json.model, 'tts-flite');
    assert.equal(q.json.status, 'QUEUED');
    assert.match(q.json.queue_id, /^[0-9a-f-]{36}$/);
    assert.equal(q.headers.get('x-service-model-id'), 'tts-flite');
    assert.equal(q.headers.get('x-ratelimit-limit-requests'), '600', 'the Audio class (as configured here)');
    assert.equal(q.headers.get('x-ratelimit-remaining-requests'), '599');
    assert.equal(q.headers.get('x-service-balance-usd'), '10.000000', 'the balance before the hold');
    // The quote is held while the job is open (it may have finished already on a fast machine: then it is charged).
    const during = await balances(accountId);
    const open = ['queued', 'running'].includes((await job(q.json.queue_id)).status);
    if (open) assert.equal(during.usdHeld, n * PER_CHAR);
    // Retrieve counts against the Audio class apart from queue: its first answer leaves 599 too.
    const first = await retrieveOnce(h.base, bearer(key)(), { model: 'tts-flite', queue_id: q.json.queue_id });
    assert.equal(first.headers.get('x-ratelimit-remaining-requests'), '599');

    const r = await retrieveWhenDone(h.base, bearer(key), { model: 'tts-flite', queue_id: q.json.queue_id });
    assert.equal(r.status, 200, JSON.stringify(r.json));
    assert.equal(r.contentType, 'audio/mpeg');
    for (const p of r.progress) {
      assert.deepEqual(Object.keys(p).sort(), ['average_execution_time', 'execution_duration', 'status']);
      assert.equal(p.status, 'PROCESSING');
      assert.ok(Number.isInteger(p.average_execution_time) && p.average_execution_time > 0);
      assert.ok(Number.isInteger(p.execution_duration) && p.execution_duration >= 0);
    }
    const audio = await probeAudio(r.bytes!);
    assert.equal(audio.codec, 'mp3');
    // Flite speaks about 15 characters a second: 1,200 characters are more than a minute of speech.
    assert.ok(audio.duration > 40, `duration ${audio.duration}`);

    // Billed once: the quote, in characters, on one usage row; nothing stays held.
    const balance = await settled(accountId);
    assert.deepEqual(await usage(q.json.queue_id), [{ unit: 'character', quantity: n, usd: n * PER_CHAR, endpoint: '/audio/queue', model_id: 'tts-flite' }]);
    assert.equal(n * PER_CHAR, quote.json.quote * 1e6, 'the charge is the quote');
    assert.deepEqual(balance, { usd: 10_000_000 - n * PER_CHAR, usdHeld: 0 });
    const row = await job(q.json.queue_id);
    assert.deepEqual([row.status, row.billing, Number(row.attempts)], ['succeeded', 'settled', 1]);

    // The media stay until complete; complete deletes them; then 404, and completing again is harmless.
    const again = await retrieveOnce(h.base, bearer(key)(), { model: 'tts-flite', queue_id: q.json.queue_id });
    assert.deepEqual(again.bytes, r.bytes);
    const done = await post(h, '/audio/complete', key, { model: 'tts-flite', queue_id: q.json.queue_id });
    assert.deepEqual([done.status, done.json], [200, { success: true }]);
    const gone = await post(h, '/audio/retrieve', key, { model: 'tts-flite', queue_id: q.json.queue_id });
    assert.equal(gone.status, 404, gone.text);
    assert.equal(gone.json.code, 'NOT_FOUND');
    assert.equal((await post(h, '/audio/complete', key, { model: 'tts-flite', queue_id: q.json.queue_id })).status, 200);
    assert.equal((await balances(accountId)).usd, 10_000_000 - n * PER_CHAR);
  });

  test('wav (text given as `input`) and flac, language_code and speed; delete_media_on_completion answers once', async () => {
    const { key, accountId } = await h.newAccount({ usd: 1 });
    const text = 'A short chapter. It has two sentences.';
    const wav = await post(h, '/audio/queue', key, { model: 'tts-wav-only', input: text, language_code: 'en', speed: 1.5 });
    assert.equal(wav.status, 200, wav.text);
    const flac = await post(h, '/audio/queue', key, { model: 'tts-flite', prompt: text, response_format: 'flac', voice: 'rms' });
    assert.equal(flac.status, 200, flac.text);
    const w = await retrieveWhenDone(h.base, bearer(key), { model: 'tts-wav-only', queue_id: wav.json.queue_id, delete_media_on_completion: true });
    assert.equal(w.contentType, 'audio/wav', JSON.stringify(w.json));
    const wavInfo = await probeAudio(w.bytes!);
    assert.deepEqual([wavInfo.codec, wavInfo.sampleRate], ['pcm_s16le', 16_000]);
    assert.ok(wavInfo.duration > 1, `duration ${wavInfo.duration}`);
    // Deleted once sent: the next retrieve is a 404.
    let after = await post(h, '/audio/retrieve', key, { model: 'tts-wav-only', queue_id: wav.json.queue_id });
    for (let i = 0; i < 50 && after.status === 200; i++) {
      await sleep(20);
      after = await post(h, '/audio/retrieve', key, { model: 'tts-wav-only', queue_id: wav.json.queue_id });
    }
    assert.equal(after.status, 404);
    const f = await retrieveWhenDone(h.base, bearer(key), { model: 'tts-flite', queue_id: flac.json.queue_id });
    assert.equal(f.contentType, 'audio/flac');
    const flacInfo = await probeAudio(f.bytes!);
    assert.equal(flacInfo.codec, 'flac');
    // The slower voice at 1x says the same text in more time than the wav at 1.5x.
    assert.ok(flacInfo.duration > wavInfo.duration, `${flacInfo.duration} > ${wavInfo.duration}`);
    assert.deepEqual(await settled(accountId), { usd: 1_000_000 - 2 * text.length * PER_CHAR, usdHeld: 0 });
  });

  test('progress while running, the hold on the balance; complete cancels a queued and a running job, refunded', async () => {
    const { key, accountId } = await h.newAccount({ usd: 1 });
    const text = 'The first sentence is made at once. The second waits [[hold]] upstream.';
    const a = await post(h, '/audio/queue', key, { model: 'tts-held', prompt: text, voice: 'af_sky', response_format: 'wav' });
    assert.equal(a.status, 200, a.text);
    const id = a.json.queue_id;
    // The first sentence is made and the job saves how far it got; the second is held upstream.
    let state: any;
    for (let i = 0; i < 400 && state?.pieces !== 1; i++) {
      await sleep(25);
      state = JSON.parse((await job(id)).state ?? 'null');
    }
    assert.deepEqual(state, { characters: 'The first sentence is made at once.'.length, pieces: 1, totalPieces: 2 });
    assert.deepEqual(await balances(accountId), { usd: 1_000_000, usdHeld: text.length * PER_CHAR });
    const p = await retrieveOnce(h.base, bearer(key)(), { model: 'tts-held', queue_id: id });
    assert.equal(p.status, 200);
    assert.equal(p.json.status, 'PROCESSING');
    assert.ok(Number.isInteger(p.json.average_execution_time) && p.json.average_execution_time > 0, JSON.stringify(p.json));
    assert.ok(Number.isInteger(p.json.execution_duration) && p.json.execution_duration >= 0, JSON.stringify(p.json));

    // The one worker is busy: a second job waits in the queue, its quote held too.
    const b = await post(h, '/audio/queue', key, { model: 'tts-flite', prompt: 'Queued behind.' });
    assert.equal(b.status, 200, b.text);
    assert.equal((await job(b.json.queue_id)).status, 'queued');
    assert.equal((await balances(accountId)).usdHeld, (text.length + 'Queued behind.'.length) * PER_CHAR);
    const queued = await retrieveOnce(h.base, bearer(key)(), { model: 'tts-flite', queue_id: b.json.queue_id });
    assert.deepEqual([queued.json.status, queued.json.execution_duration], ['PROCESSING', 0]);

    // Complete while queued, then while running: each is cancelled and its hold released; nothing is charged.
    for (const [model, jobId] of [
      ['tts-flite', b.json.queue_id],
      ['tts-held', id],
    ]) {
      const done = await post(h, '/audio/complete', key, { model, queue_id: jobId });
      assert.deepEqual([done.status, done.json], [200, { success: true }]);
      const gone = await post(h, '/audio/retrieve', key, { model, queue_id: jobId });
      assert.equal(gone.status, 404, gone.text);
      const row = await job(jobId);
      assert.deepEqual([row.status, row.billing, JSON.parse(row.error).code], ['failed', 'released', 'cancelled']);
      assert.deepEqual(await usage(jobId), []);
    }
    assert.deepEqual(await settled(accountId), { usd: 1_000_000, usdHeld: 0 });
    // The worker let go of the cancelled job: the next one runs.
    const c = await post(h, '/audio/queue', key, { model: 'tts-flite', prompt: 'Next.', response_format: 'wav' });
    const r = await retrieveWhenDone(h.base, bearer(key), { model: 'tts-flite', queue_id: c.json.queue_id });
    assert.equal(r.contentType, 'audio/wav', JSON.stringify(r.json));
  });

  test('bad bodies are 400s naming the field (404 for an unknown model), and queue and hold nothing', async () => {
    const { key, accountId } = await h.newAccount({ usd: 1 });
    const base = { model: 'tts-flite', prompt: 'Hello there.' };
    const cases: [Record<string, unknown>, number, string][] = [
      [{ model: 'tts-flite' }, 400, 'prompt'],
      [{ ...base, prompt: '' }, 400, 'prompt'],
      [{ ...base, prompt: 42 }, 400, 'prompt'],
      [{ ...base, input: 'Twice.' }, 400, 'input'],
      [{ ...base, prompt: article(MAX_CHARS + 1) }, 400, 'prompt'],
      [{ model: 'tts-flite', input: 'é'.repeat(MAX_CHARS * 3) }, 400, 'input'],
      [{ ...base, prompt: '— … —' }, 400, 'prompt'],
      [{ ...base, voice: 'nobody' }, 400, 'voice'],
      [{ ...base, speed: 5 }, 400, 'speed'],
      [{ ...base, speed: 0.1 }, 400, 'speed'],
      [{ ...base, response_format: 'opus' }, 400, 'response_format'],
      [{ ...base, model: 'tts-wav-only', response_format: 'mp3' }, 400, 'response_format'],
      [{ ...base, language_code: 'fr' }, 400, 'language_code'],
      [{ ...base, lyrics_prompt: 'la la' }, 400, 'lyrics_prompt'],
      [{ ...base, duration_seconds: 30 }, 400, 'duration_seconds'],
      [{ ...base, force_instrumental: true }, 400, 'force_instrumental'],
      [{ ...base, colour: 'blue' }, 400, ''],
      [{ ...base, model: 'asr-pocketsphinx' }, 400, 'model'],
      [{ ...base, model: 'scripted-model' }, 400, 'model'],
      [{ ...base, model: 'no-such-model' }, 404, ''],
    ];
    for (const [body, status, param] of cases) {
      const r = await post(h, '/audio/queue', key, body);
      assert.equal(r.status, status, `${JSON.stringify(body).slice(0, 120)} → ${r.text.slice(0, 300)}`);
      const named = r.json.param ?? Object.keys(r.json.details ?? {}).find((k) => k !== '_errors') ?? '';
      if (param) assert.equal(named, param, r.text.slice(0, 300));
    }
    assert.equal((await post(h, '/audio/queue', key, 'not json')).status, 400);
    assert.equal((await post(h, '/audio/queue', key, [base])).status, 400);
    const quotes: [Record<string, unknown>, string][] = [
      [{ model: 'tts-flite' }, 'character_count'],
      [{ model: 'tts-flite', character_count: 0 }, 'character_count'],
      [{ model: 'tts-flite', character_count: 1.5 }, 'character_count'],
      [{ model: 'tts-flite', character_count: '100' }, 'character_count'],
      [{ model: 'tts-flite', character_count: MAX_CHARS + 1 }, 'character_count'],
      [{ model: 'tts-flite', duration_seconds: 10 }, 'duration_seconds'],
      [{ model: 'tts-flite', character_count: 10, voice: 'slt' }, ''],
      [{ model: 'asr-pocketsphinx', character_count: 10 }, 'model'],
    ];
    for (const [body, param] of quotes) {
      const r = await post(h, '/audio/quote', key, body);
      assert.equal(r.status, 400, `${JSON.stringify(body)} → ${r.text}`);
      const named = r.json.param ?? Object.keys(r.json.details ?? {}).find((k) => k !== '_errors') ?? '';
      if (param) assert.equal(named, param, r.text);
    }
    assert.equal((await post(h, '/audio/retrieve', key, { model: 'tts-flite' })).status, 400);
    assert.equal((await post(h, '/audio/retrieve', key, { model: 'tts-flite', queue_id: 'x', extra: 1 })).status, 400);
    assert.equal((await post(h, '/audio/complete', key, { queue_id: 'x' })).status, 400);
    assert.equal((await post(h, '/audio/retrieve', key, { model: 'tts-flite', queue_id: 'no-such-job' })).status, 404);
    assert.equal(Number((await h.svc.store.get<any>('SELECT COUNT(*) AS n FROM jobs WHERE account_id = $1', [accountId]))!.n), 0);
    assert.deepEqual(await balances(accountId), { usd: 1_000_000, usdHeld: 0 });
  });

  test('credentials: none is the x402 402, a bad key 401, the quote Bearer only; a short balance is 402 and queues nothing', async () => {
    const body = { model: 'tts-flite', prompt: 'Hello there, this is a test.' };
    const none = await post(h, '/audio/queue', undefined, body);
    assert.equal(none.status, 402);
    assert.equal(none.json.code, 'AUTHENTICATION_REQUIRED');
    assert.equal((await post(h, '/audio/queue', 'vk-not-a-key', body)).status, 401);
    assert.equal((await post(h, '/audio/retrieve', undefined, { model: 'tts-flite', queue_id: 'x' })).status, 402);
    assert.equal((await post(h, '/audio/quote', undefined, { model: 'tts-flite', character_count: 10 })).status, 401);
    const poor = await h.newAccount({ usd: 0.01 });
    const r = await post(h, '/audio/queue', poor.key, body);
    assert.equal(r.status, 402, r.text);
    assert.equal(r.json.code, 'INSUFFICIENT_BALANCE');
    assert.equal(Number((await h.svc.store.get<any>('SELECT COUNT(*) AS n FROM jobs WHERE account_id = $1', [poor.accountId]))!.n), 0);
    // The quote is free: any key may ask, whatever its balance.
    assert.deepEqual((await post(h, '/audio/quote', poor.key, { model: 'tts-flite', character_count: 2500 })).json, { quote: 2.5 });
  });

  test('a wallet signed in with SIGN-IN-WITH-X queues, polls and completes; X-Balance-Remaining follows the charge', async () => {
    const account = evmWallet();
    const w = await ensureWallet(h.svc.store, 'eip155', account.address);
    await grantUsd(h.svc.store, w.accountId, 500_000);
    const signed = async () => ({ 'SIGN-IN-WITH-X': await signInHeader(h, account) });
    const text = article(100);
    const q = await post(h, '/audio/queue', undefined, { model: 'tts-flite', prompt: text }, await signed());
    assert.equal(q.status, 200, q.text);
    const remaining = (500_000 - text.length * PER_CHAR) / 1e6;
    assert.equal(q.headers.get('x-balance-remaining'), remaining.toFixed(6), 'the hold is taken off what remains');
    const r = await retrieveWhenDone(h.base, signed, { model: 'tts-flite', queue_id: q.json.queue_id });
    assert.equal(r.contentType, 'audio/mpeg', JSON.stringify(r.json));
    assert.ok((await probeAudio(r.bytes!)).duration > 1);
    const done = await fetch(`${h.base}/audio/complete`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(await signed()) },
      body: JSON.stringify({ model: 'tts-flite', queue_id: q.json.queue_id }),
    });
    assert.equal(done.status, 200);
    assert.equal(done.headers.get('x-balance-remaining'), remaining.toFixed(6));
    assert.equal((await post(h, '/audio/quote', undefined, { model: 'tts-flite', character_count: 10 }, await signed())).status, 401);
  });

  test('/models?type=tts says speech models take queued texts', async () => {
    const r = await get(h, '/models?type=tts');
    assert.equal(r.status, 200);
    const m = r.json.data.find((x: { id: string }) => x.id === 'tts-flite');
    assert.equal(m.model_spec.supportsQueueing, true);
    assert.deepEqual(m.model_spec.pricing.per_thousand_characters, { usd: 1, diem: 1 });
  });
});

describe('audio jobs across a kill -9 (SQLite)', () => {
  let up: HeldUpstream;
  let dataDir: string;
  let env: NodeJS.ProcessEnv;
  const servers: LoggedServer[] = [];

  before(async () => {
    up = await startHeldUpstream();
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lagoon-audio-jobs-restart-'));
    const catalogue = path.join(dataDir, 'models.json');
    fs.writeFileSync(catalogue, JSON.stringify({ models: [heldModel(up.url), fliteModel()] }));
    env = {
      ...process.env,
      LAGOON_JOB_WORKERS: '1',
      LAGOON_JOB_POLL_MS: '100',
      LAGOON_NO_APP: '1',
      LAGOON_DATA_DIR: dataDir,
      LAGOON_MODELS: catalogue,
      HOST: '127.0.0.1',
      PORT: '0',
    };
  });
  after(async () => {
    for (const s of servers) if (s.proc.exitCode === null && s.proc.signalCode === null) s.proc.kill('SIGKILL');
    up.release();
    await up.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const cli = async (...args: string[]) => (await run(process.execPath, ['scripts/lagoon.ts', ...args], { env })).stdout.trim().split('\n').at(-1)!;
  const serve = async () => {
    const s = await startLoggedServer(env);
    servers.push(s);
    return s;
  };
  const queue = async (s: LoggedServer, key: string, body: Record<string, unknown>) => {
    const res = await fetch(`${s.origin}/api/v1/audio/queue`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify(body),
    });
    assert.equal(res.status, 200, await res.clone().text());
    return ((await res.json()) as { queue_id: string }).queue_id;
  };
  /** Until the upstream has been asked for the held sentence `times` times (each attempt asks once). */
  const untilHeld = async (s: LoggedServer, times: number) => {
    for (let i = 0; i < 600; i++) {
      if (up.inputs.filter((x) => x.includes('[[hold]]')).length >= times) return;
      await sleep(50);
    }
    throw new Error(`the held sentence was not asked for ${times} time(s):\n${s.log()}`);
  };

  test('SIGKILL mid-job, restart: the job runs again, finishes once and is billed once; the job queued behind it too', async () => {
    const accountId = await cli('account', 'create', '--name', 'audio-jobs');
    const key = await cli('key', 'create', '--account', accountId, '--type', 'INFERENCE');
    await cli('credit', 'grant', '--account', accountId, '--usd', '5');
    const held = 'This text outlives its server. Its second sentence [[hold]] waits upstream.';
    const behind = 'Queued behind the held job.';

    const first = await serve();
    const a = await queue(first, key, { model: 'tts-held', prompt: held, voice: 'af_sky', response_format: 'wav' });
    const b = await queue(first, key, { model: 'tts-flite', prompt: behind });
    await untilHeld(first, 1);
    first.proc.kill('SIGKILL');
    assert.equal(await first.exited, null, 'killed, not exited');

    const store = await openStore({ dataDir });
    try {
      const rows = await store.all<{ id: string; status: string; billing: string }>('SELECT id, status, billing FROM jobs ORDER BY created_at');
      assert.deepEqual(
        rows.map((r) => [r.id, r.status, r.billing]),
        [
          [a, 'running', 'held'],
          [b, 'queued', 'held'],
        ],
      );
    } finally {
      await store.close();
    }

    // Restarted on the same data dir: the interrupted job is queued again and asks for its text again.
    const second = await serve();
    await untilHeld(second, 2);
    const r = await retrieveOnce(`${second.origin}/api/v1`, { authorization: `Bearer ${key}` }, { model: 'tts-held', queue_id: a });
    assert.equal(r.json?.status, 'PROCESSING', JSON.stringify(r.json));
    up.release();
    const doneA = await retrieveWhenDone(`${second.origin}/api/v1`, () => ({ authorization: `Bearer ${key}` }), { model: 'tts-held', queue_id: a });
    assert.equal(doneA.contentType, 'audio/wav', `${JSON.stringify(doneA.json)}\n${second.log()}`);
    const info = await probeAudio(doneA.bytes!);
    assert.equal(info.codec, 'pcm_s16le');
    assert.ok(info.duration > 1, `duration ${info.duration}`);
    const doneB = await retrieveWhenDone(`${second.origin}/api/v1`, () => ({ authorization: `Bearer ${key}` }), { model: 'tts-flite', queue_id: b });
    assert.equal(doneB.contentType, 'audio/mpeg', JSON.stringify(doneB.json));
    second.proc.kill('SIGTERM');
    assert.equal(await second.exited, 0, second.log());

    // Each job billed once, by its characters; the balance is the grant less the usage rows; nothing held.
    const after = await openStore({ dataDir });
    try {
      const usage = await after.all<{ request_id: string; quantity: number; usd: number }>(
        'SELECT request_id, quantity, usd FROM usage WHERE account_id = $1',
        [accountId],
      );
      assert.deepEqual(
        usage.map((u) => [u.request_id, Number(u.quantity), Number(u.usd)]).sort(),
        [
          [a, held.length, held.length * PER_CHAR],
          [b, behind.length, behind.length * PER_CHAR],
        ].sort(),
      );
      const account = await after.get<{ usd: number; usd_held: number }>('SELECT usd, usd_held FROM accounts WHERE id = $1', [accountId]);
      assert.deepEqual([Number(account!.usd), Number(account!.usd_held)], [5_000_000 - (held.length + behind.length) * PER_CHAR, 0]);
      const jobs = await after.all<{ id: string; status: string; billing: string; attempts: number }>('SELECT id, status, billing, attempts FROM jobs');
      assert.deepEqual(Object.fromEntries(jobs.map((j) => [j.id, [j.status, j.billing, Number(j.attempts)]])), {
        [a]: ['succeeded', 'settled', 2],
        [b]: ['succeeded', 'settled', 1],
      });
    } finally {
      await after.close();
    }
  });
});
