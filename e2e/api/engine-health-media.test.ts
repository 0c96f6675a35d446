// No silent failures for audio and video engines (issue 20): an OpenAI audio upstream and an OpenAI videos upstream on
// closed ports. The server starts; /models marks their models offline; speech, transcription, a long-audio job and a
// video job are refused at once with 503 ENGINE_DOWN naming the problem (never the key or the address), with nothing
// held, charged or queued; an upstream started later on the port is picked up without a server restart; and a job
// queued while its upstream was up still fails refunded when the upstream goes away mid-job.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type AudioUpstream, startAudioUpstream } from '../support/audio-upstreams.ts';
import { get, type Harness, post, startHarness } from '../support/harness.ts';
import { createTestDatabase } from '../support/pg.ts';
import { freePort } from '../support/processes.ts';
import { type FakeOpenAIVideos, fakeVideoModel, startFakeOpenAIVideos } from '../support/video-upstreams.ts';

const SECRET = 'sk-audio-do-not-leak-77c1';
const price = { input_usd: 0, output_usd: 0, input_diem: 0, output_diem: 0 };

/** A tts and an asr model on the OpenAI audio upstream at `port`, and a video model on the videos upstream at `videoPort`. */
function mediaModels(port: number, videoPort: number) {
  const engine = { kind: 'openai-audio', baseUrl: `http://127.0.0.1:${port}/v1`, apiKeyEnv: 'AUDIO_KEY', timeoutMs: 5000 };
  return [
    {
      id: 'tts-down',
      name: 'Speech upstream',
      type: 'tts',
      tier: 'XS',
      pricing: { ...price, per_1k_characters_usd: 1 },
      context_length: 4096,
      audio: { voices: ['af_sky'], default_format: 'wav' },
      engine,
    },
    {
      id: 'asr-down',
      name: 'Whisper upstream',
      type: 'asr',
      tier: 'XS',
      pricing: { ...price, per_second_usd: 0.01 },
      context_length: 1800,
      engine,
    },
    fakeVideoModel(`http://127.0.0.1:${videoPort}/v1`, { id: 'video-down' }),
  ];
}

/** Two seconds of 16 kHz mono silence-free tone as WAV: something a transcription request may upload. */
function toneWav(): Buffer {
  const pcm = Buffer.alloc(2 * 16000 * 2);
  for (let i = 0; i < pcm.length / 2; i++) pcm.writeInt16LE(Math.round(6000 * Math.sin((2 * Math.PI * 440 * i) / 16000)), i * 2);
  const h = Buffer.alloc(44);
  h.write('RIFF', 0);
  h.writeUInt32LE(36 + pcm.length, 4);
  h.write('WAVEfmt ', 8);
  h.writeUInt32LE(16, 16);
  h.writeUInt16LE(1, 20);
  h.writeUInt16LE(1, 22);
  h.writeUInt32LE(16000, 24);
  h.writeUInt32LE(32000, 28);
  h.writeUInt16LE(2, 32);
  h.writeUInt16LE(16, 34);
  h.write('data', 36);
  h.writeUInt32LE(pcm.length, 40);
  return Buffer.concat([h, pcm]);
}

async function transcribe(h: Harness, key: string, model: string) {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(toneWav())], { type: 'audio/wav' }), 'tone.wav');
  form.append('model', model);
  const res = await fetch(`${h.base}/audio/transcriptions`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: JSON.parse(text) };
}

const speech = (h: Harness, key: string, input = 'Hello there.') =>
  post(h, '/audio/speech', key, { model: 'tts-down', input, voice: 'af_sky', response_format: 'wav' });
const audioJob = (h: Harness, key: string, prompt = 'A longer text, spoken later.') =>
  post(h, '/audio/queue', key, { model: 'tts-down', prompt, response_format: 'wav' });
const videoJob = (h: Harness, key: string, prompt = 'a fox in the snow') => post(h, '/video/queue', key, { model: 'video-down', prompt, duration: 4 });

/** Polls until `check` passes (engine checks run every 200 ms here). */
async function eventually(check: () => Promise<boolean>, what: string) {
  for (let i = 0; i < 150; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.fail(`never happened: ${what}`);
}

/** Polls a job's retrieve until it is no longer processing. */
async function finished(h: Harness, key: string, kind: 'audio' | 'video', model: string, queueId: string) {
  let res = await post(h, `/${kind}/retrieve`, key, { model, queue_id: queueId });
  await eventually(async () => {
    res = await post(h, `/${kind}/retrieve`, key, { model, queue_id: queueId });
    return res.json?.status !== 'PROCESSING';
  }, `the ${kind} job ends`);
  return res;
}

/** The refusal every request for a model on a closed port gets. */
function assertEngineDown(res: { status: number; headers: Headers; text: string; json: any }, model: string) {
  assert.equal(res.status, 503, `${model}: ${res.text}`);
  assert.equal(res.json.code, 'ENGINE_DOWN');
  assert.match(res.json.error, new RegExp(`^Model ${model} is unavailable: .*refused the connection`));
  assert.equal(res.headers.get('retry-after'), '1', 'checked again every 200 ms here');
  assert.doesNotMatch(res.text, new RegExp(`${SECRET}|127\\.0\\.0\\.1`));
}

async function nothingSpent(h: Harness, accountId: string) {
  await h.svc.ledger.drain();
  const b = await h.svc.ledger.balances(accountId);
  assert.equal(b.usdHeld, 0, 'nothing held');
  const usage = await h.svc.store.all('SELECT request_id FROM usage WHERE account_id = $1', [accountId]);
  assert.equal(usage.length, 0, 'nothing charged');
  const jobs = await h.svc.store.all('SELECT id FROM jobs WHERE account_id = $1', [accountId]);
  assert.equal(jobs.length, 0, 'nothing queued');
  return b;
}

describe('audio and video engines on closed ports', () => {
  let h: Harness;
  let audioPort: number;
  let videoPort: number;
  let audioUp: AudioUpstream | undefined;
  let videoUp: FakeOpenAIVideos | undefined;

  before(async () => {
    audioPort = await freePort();
    videoPort = await freePort();
    h = await startHarness({ env: { LAGOON_ENGINE_CHECK_MS: '200', AUDIO_KEY: SECRET }, models: mediaModels(audioPort, videoPort) });
  });

  after(async () => {
    await h?.close();
    await audioUp?.close();
    await videoUp?.close();
  });

  test('/models marks the audio and video models offline with their reason', async () => {
    for (const [type, id] of [
      ['tts', 'tts-down'],
      ['asr', 'asr-down'],
      ['video', 'video-down'],
    ]) {
      const res = await get(h, `/models?type=${type}`);
      assert.equal(res.status, 200);
      const spec = res.json.data.find((m: { id: string }) => m.id === id).model_spec;
      assert.equal(spec.offline, true, id);
      assert.match(spec.offlineReason, /refused the connection/);
      assert.doesNotMatch(res.text, new RegExp(SECRET));
    }
  });

  test('speech, transcription, an audio job and a video job get 503 ENGINE_DOWN; nothing is held, charged or queued', async () => {
    const { key, accountId } = await h.newAccount();
    const before = await h.svc.ledger.balances(accountId);
    assertEngineDown(await speech(h, key), 'tts-down');
    assertEngineDown(await post(h, '/audio/speech', key, { model: 'tts-down', input: 'Streamed.', voice: 'af_sky', streaming: true }), 'tts-down');
    assertEngineDown(await transcribe(h, key, 'asr-down'), 'asr-down');
    assertEngineDown(await audioJob(h, key), 'tts-down');
    assertEngineDown(await videoJob(h, key), 'video-down');
    const afterwards = await nothingSpent(h, accountId);
    assert.equal(afterwards.usd, before.usd);
    // Bad input is still the caller's 400, whatever the engine's state.
    const bad = await post(h, '/video/queue', key, { model: 'video-down', prompt: 'x', duration: 99 });
    assert.equal(bad.status, 400);
    // A quote costs nothing and needs no engine: it is still answered.
    const quote = await post(h, '/video/quote', key, { model: 'video-down', duration: 4 });
    assert.equal(quote.status, 200, quote.text);
  });

  test('upstreams started later on the closed ports are picked up without a server restart', async () => {
    const { key, accountId } = await h.newAccount();
    audioUp = await startAudioUpstream({ port: audioPort });
    videoUp = await startFakeOpenAIVideos({ port: videoPort, pollsToFinish: 1 });
    await eventually(async () => (await speech(h, key)).status === 200, 'speech serves');
    assert.equal(audioUp.speech.at(-1)?.authorization, `Bearer ${SECRET}`);
    const t = await transcribe(h, key, 'asr-down');
    assert.equal(t.status, 200, t.text);
    const models = await get(h, '/models?type=video');
    assert.equal(models.json.data.find((m: { id: string }) => m.id === 'video-down').model_spec.offline, false);
    const a = await audioJob(h, key);
    assert.equal(a.status, 200, a.text);
    const v = await videoJob(h, key);
    assert.equal(v.status, 200, v.text);
    const spoken = await finished(h, key, 'audio', 'tts-down', a.json.queue_id);
    assert.equal(spoken.status, 200, spoken.text);
    const made = await finished(h, key, 'video', 'video-down', v.json.queue_id);
    assert.equal(made.status, 200, made.text);
    await h.svc.ledger.drain();
    // Each served request billed once; the refusals while polling for recovery cost nothing.
    const usage = await h.svc.store.all<{ endpoint: string }>('SELECT endpoint FROM usage WHERE account_id = $1 ORDER BY endpoint', [accountId]);
    assert.deepEqual(
      usage.map((u) => u.endpoint),
      ['/audio/queue', '/audio/speech', '/audio/transcriptions', '/video/queue'],
    );
  });

  test('a job queued while its upstream is up fails refunded when the upstream goes away; new ones are refused again', async () => {
    const { key, accountId } = await h.newAccount();
    const before = await h.svc.ledger.balances(accountId);
    // Held upstream: the video is polled until released (never here), the speech waits 3 s before its headers.
    const v = await videoJob(h, key, 'a slow fox [[hold]]');
    assert.equal(v.status, 200, v.text);
    const calls = audioUp!.speech.length;
    const a = await audioJob(h, key, 'Wait for this one. [[delay:3000]]');
    assert.equal(a.status, 200, a.text);
    await eventually(async () => audioUp!.speech.length > calls, 'the audio job reaches its upstream');
    await eventually(
      async () => videoUp!.videos.size > 0 && [...videoUp!.videos.values()].some((x) => x.prompt.includes('[[hold]]')),
      'the video job is upstream',
    );
    await audioUp!.close();
    await videoUp!.close();
    audioUp = undefined;
    videoUp = undefined;
    for (const [kind, model, id] of [
      ['audio', 'tts-down', a.json.queue_id],
      ['video', 'video-down', v.json.queue_id],
    ] as const) {
      const r = await finished(h, key, kind, model, id);
      assert.equal(r.status, 500, r.text);
      assert.equal(r.json.credits_refunded, true);
    }
    await h.svc.ledger.drain();
    const b = await h.svc.ledger.balances(accountId);
    assert.equal(b.usd, before.usd, 'refunded in full');
    assert.equal(b.usdHeld, 0);
    await eventually(async () => (await videoJob(h, key)).json?.code === 'ENGINE_DOWN', 'video refused again');
    await eventually(async () => (await speech(h, key)).json?.code === 'ENGINE_DOWN', 'speech refused again');
  });
});

describe('audio and video engines down on PostgreSQL', () => {
  test('refused with 503 ENGINE_DOWN before anything is held or stored', async () => {
    const { url: databaseUrl, drop } = await createTestDatabase();
    const h = await startHarness({
      databaseUrl,
      env: { LAGOON_ENGINE_CHECK_MS: '200', AUDIO_KEY: SECRET },
      models: mediaModels(await freePort(), await freePort()),
    });
    try {
      const { key, accountId } = await h.newAccount();
      assertEngineDown(await speech(h, key), 'tts-down');
      assertEngineDown(await audioJob(h, key), 'tts-down');
      assertEngineDown(await videoJob(h, key), 'video-down');
      await nothingSpent(h, accountId);
    } finally {
      await h.close();
      await drop();
    }
  });
});
