// Video jobs on upstreams, against loopback fakes that speak their protocols (e2e/support/video-upstreams.ts): the
// OpenAI videos API (create, poll, download; a moderation refusal, a failure, one that never finishes, a cancel) and
// ComfyUI workflows (placeholders, uploads, a WebM output converted, a failed workflow). Failures and timeouts
// refund the hold; the cap on jobs at once is per account.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { type Harness, post, startHarness } from '../support/harness.ts';
import { probeClip, retrieveWhenDone, solidPng } from '../support/video.ts';
import { type FakeComfyUI, type FakeOpenAIVideos, startFakeComfyUI, startFakeOpenAIVideos, testWorkflow } from '../support/video-upstreams.ts';

let h: Harness;
let openai: FakeOpenAIVideos;
let comfy: FakeComfyUI;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lagoon-video-up-'));
const PRICE = 0.1;

const videoModel = (id: string, engine: Record<string, unknown>, video: Record<string, unknown>) => ({
  id,
  name: `Upstream ${id}`,
  type: 'video',
  tier: 'M',
  pricing: { input_usd: 0, output_usd: 0, input_diem: 0, output_diem: 0, per_second_usd: PRICE, per_second_diem: PRICE },
  context_length: 2500,
  video,
  engine,
});

before(async () => {
  [openai, comfy] = await Promise.all([startFakeOpenAIVideos({ apiKey: 'sk-fake-video' }), startFakeComfyUI()]);
  fs.writeFileSync(path.join(dir, 'webm.json'), JSON.stringify(testWorkflow({ format: 'webm' })));
  fs.writeFileSync(path.join(dir, 'i2v.json'), JSON.stringify(testWorkflow({ image: true })));
  h = await startHarness({
    env: { FAKE_VIDEO_KEY: 'sk-fake-video', LAGOON_MAX_JOBS_PER_ACCOUNT: '2' },
    models: [
      videoModel(
        'sora-like',
        { kind: 'openai-videos', baseUrl: openai.url, model: 'sora-2', apiKeyEnv: 'FAKE_VIDEO_KEY', pollMs: 30, sizes: { '9:16@720p': '720x1280' } },
        { durations: [4, 8], resolutions: ['720p'], aspect_ratios: ['16:9', '9:16'], inputs: ['image'] },
      ),
      videoModel(
        'sora-slow',
        { kind: 'openai-videos', baseUrl: openai.url, apiKeyEnv: 'FAKE_VIDEO_KEY', pollMs: 30, timeoutMs: 1500 },
        { durations: [4], resolutions: ['360p'], aspect_ratios: ['16:9'] },
      ),
      // The workflow path is relative to the catalogue file (written into the harness's data dir below).
      videoModel(
        'comfy-t2v',
        { kind: 'comfyui-video', baseUrl: comfy.url, workflow: 't2v.json', pollMs: 30, fps: 8 },
        {
          durations: [2],
          resolutions: ['480p'],
          aspect_ratios: ['16:9'],
        },
      ),
      videoModel(
        'comfy-webm',
        { kind: 'comfyui-video', baseUrl: comfy.url, workflow: path.join(dir, 'webm.json'), pollMs: 30 },
        {
          durations: [2],
          resolutions: ['240p'],
          aspect_ratios: ['1:1'],
        },
      ),
      videoModel(
        'comfy-i2v',
        { kind: 'comfyui-video', baseUrl: comfy.url, workflow: path.join(dir, 'i2v.json'), pollMs: 30 },
        {
          durations: [2],
          resolutions: ['240p'],
          aspect_ratios: ['1:1'],
          inputs: ['image'],
        },
      ),
    ],
  });
  fs.writeFileSync(path.join(h.dataDir, 't2v.json'), JSON.stringify(testWorkflow()));
});
after(async () => {
  await h?.close();
  await Promise.all([openai?.close(), comfy?.close()]);
  fs.rmSync(dir, { recursive: true, force: true });
});

const png = () => solidPng('blue', 32, 32);

async function account(usd = 5) {
  const a = await h.newAccount({ usd });
  const balance = async () => {
    // Releases and settlements commit just after the job's state changes; wait for them to land.
    for (let i = 0; i < 100; i++) {
      const b = await h.svc.ledger.balances(a.accountId);
      if (b.usdHeld === 0) return b.usd / 1e6;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error('credit still held');
  };
  const usage = () => h.svc.store.all<any>('SELECT request_id, unit, quantity, usd FROM usage WHERE account_id = $1', [a.accountId]);
  return { ...a, balance, usage };
}

test('OpenAI videos: created with the mapped size and the image reference, polled, downloaded, billed by its seconds', async () => {
  const a = await account();
  const q = await post(h, '/video/queue', a.key, {
    model: 'sora-like',
    prompt: 'a heron takes off',
    duration: '8s',
    aspect_ratio: '9:16',
    image_url: `data:image/png;base64,${png().toString('base64')}`,
  });
  assert.equal(q.status, 200, q.text);
  const r = await retrieveWhenDone(h.base, a.key, 'sora-like', q.json.queue_id);
  assert.equal(r.contentType, 'video/mp4', JSON.stringify(r.json));
  const clip = await probeClip(r.bytes!);
  assert.deepEqual([clip.video?.codec_name, clip.video?.width, clip.video?.height, Math.round(clip.duration)], ['h264', 720, 1280, 8]);
  const v = [...openai.videos.values()].find((x) => x.prompt === 'a heron takes off')!;
  assert.deepEqual([v.model, v.seconds, v.size, v.reference?.type], ['sora-2', '8', '720x1280', 'image/png']);
  assert.ok(
    openai.requests.every((x) => x.authorization === 'Bearer sk-fake-video'),
    'the key from apiKeyEnv',
  );
  assert.deepEqual(
    (await a.usage()).map((u) => [u.request_id, u.unit, Number(u.quantity), Number(u.usd)]),
    [[q.json.queue_id, 'second', 8, 800_000]],
  );
  assert.equal(await a.balance(), 4.2);
});

test('OpenAI videos: a moderation refusal is the 422 with credits_refunded; another failure a 500; nothing billed', async () => {
  const a = await account();
  const refused = await post(h, '/video/queue', a.key, { model: 'sora-like', prompt: 'something forbidden [[fail]]', duration: 4 });
  const failed = await post(h, '/video/queue', a.key, { model: 'sora-like', prompt: 'unlucky [[error]]', duration: 4 });
  const r1 = await retrieveWhenDone(h.base, a.key, 'sora-like', refused.json.queue_id);
  assert.equal(r1.status, 422, JSON.stringify(r1.json));
  assert.equal(r1.json.code, 'CONTENT_POLICY_VIOLATION');
  assert.equal(r1.json.type, 'provider_content_policy');
  assert.equal(r1.json.credits_refunded, true);
  assert.match(r1.json.error, /moderation/);
  const r2 = await retrieveWhenDone(h.base, a.key, 'sora-like', failed.json.queue_id);
  assert.equal(r2.status, 500);
  assert.equal(r2.json.code, 'INFERENCE_FAILED');
  assert.equal(r2.json.credits_refunded, true);
  assert.deepEqual(await a.usage(), []);
  assert.equal(await a.balance(), 5);
});

test('OpenAI videos: an upstream job that never finishes times out, is deleted upstream, and is refunded', async () => {
  const a = await account();
  const q = await post(h, '/video/queue', a.key, { model: 'sora-slow', prompt: 'forever [[hang]]', duration: 4 });
  assert.equal(q.status, 200, q.text);
  const r = await retrieveWhenDone(h.base, a.key, 'sora-slow', q.json.queue_id);
  assert.equal(r.status, 500, JSON.stringify(r.json));
  assert.equal(r.json.failure, 'timeout');
  assert.equal(r.json.credits_refunded, true);
  assert.match(r.json.error, /did not finish within 2 s/);
  assert.deepEqual(await a.usage(), []);
  assert.equal(await a.balance(), 5);
  for (let i = 0; i < 100 && !openai.deleted.length; i++) await new Promise((resolve) => setTimeout(resolve, 20));
  assert.ok(openai.deleted.some((id) => openai.requests.some((x) => x.method === 'DELETE' && x.path.endsWith(id))));
});

test('the cap on jobs at once (2 here) is per account; complete cancels a running job and refunds it', async (t) => {
  const a = await account();
  const b = await account();
  const hold = (key: string, n: number) => post(h, '/video/queue', key, { model: 'sora-like', prompt: `waiting ${n} [[hold]]`, duration: 4 });
  const [j1, j2] = [await hold(a.key, 1), await hold(a.key, 2)];
  assert.deepEqual([j1.status, j2.status], [200, 200]);
  const third = await hold(a.key, 3);
  assert.equal(third.status, 429, third.text);
  assert.equal(third.json.code, 'TOO_MANY_JOBS');
  assert.equal((await hold(b.key, 4)).status, 200, "another account's cap is its own");

  // Cancel one: its hold goes back, nothing is billed, the upstream video is deleted, and there is room again.
  const running = await retrieveWhenDone(h.base, a.key, 'sora-like', j1.json.queue_id, { timeoutMs: 300 }).catch(() => undefined);
  assert.equal(running, undefined, 'still running');
  const done = await post(h, '/video/complete', a.key, { model: 'sora-like', queue_id: j1.json.queue_id });
  assert.deepEqual([done.status, done.json], [200, { success: true }]);
  assert.equal((await post(h, '/video/retrieve', a.key, { model: 'sora-like', queue_id: j1.json.queue_id })).status, 404);
  const j4 = await hold(a.key, 5);
  assert.equal(j4.status, 200, j4.text);

  // Let the others finish (the last one may not have reached the upstream yet: keep releasing until they end).
  const releasing = setInterval(() => {
    for (const v of openai.videos.values()) openai.release(v.id);
  }, 50);
  t.after(() => clearInterval(releasing));
  for (const j of [j2, j4]) {
    const r = await retrieveWhenDone(h.base, a.key, 'sora-like', j.json.queue_id);
    assert.equal(r.contentType, 'video/mp4', JSON.stringify(r.json));
  }
  assert.equal((await a.usage()).length, 2, 'the cancelled job is not billed');
  assert.equal(Math.round((await a.balance()) * 100), 420);
  const cancelledUpstream = [...openai.requests].filter((x) => x.method === 'DELETE').length;
  assert.ok(cancelledUpstream >= 1);
});

test('ComfyUI: the workflow’s placeholders are filled in, /history followed, the output downloaded', async () => {
  const a = await account();
  const q = await post(h, '/video/queue', a.key, { model: 'comfy-t2v', prompt: 'a comfy fox', negative_prompt: 'blur', duration: '2s', seed: 42 });
  assert.equal(q.status, 200, q.text);
  const r = await retrieveWhenDone(h.base, a.key, 'comfy-t2v', q.json.queue_id);
  assert.equal(r.contentType, 'video/mp4', JSON.stringify(r.json));
  const clip = await probeClip(r.bytes!);
  assert.deepEqual([clip.video?.codec_name, clip.video?.width, clip.video?.height, Math.round(clip.duration)], ['h264', 854, 480, 2]);
  const p = [...comfy.prompts.values()].find((x) => x.graph['3'].inputs.prompt === 'a comfy fox')!;
  assert.deepEqual(p.graph['3'].inputs, {
    prompt: 'a comfy fox',
    negative_prompt: 'blur',
    seed: 42,
    width: 854,
    height: 480,
    frames: 16,
    fps: 8,
    filename_prefix: `lagoon-${q.json.queue_id}`,
    label: 'clip of 2 s',
    format: 'mp4',
  });
  assert.equal((await a.usage())[0].unit, 'second');
});

test('ComfyUI: an image reference is uploaded into the workflow; a WebM output is converted to H.264 MP4', async () => {
  const a = await account();
  const i2v = await post(h, '/video/queue', a.key, {
    model: 'comfy-i2v',
    prompt: 'move',
    duration: 2,
    image_url: `data:image/png;base64,${png().toString('base64')}`,
  });
  const webm = await post(h, '/video/queue', a.key, { model: 'comfy-webm', prompt: 'webm please', duration: 2 });
  const [r1, r2] = [
    await retrieveWhenDone(h.base, a.key, 'comfy-i2v', i2v.json.queue_id),
    await retrieveWhenDone(h.base, a.key, 'comfy-webm', webm.json.queue_id),
  ];
  assert.equal(r1.contentType, 'video/mp4', JSON.stringify(r1.json));
  const image = [...comfy.prompts.values()].find((x) => x.graph['3'].inputs.prompt === 'move')!.graph['3'].inputs.image as string;
  assert.ok(comfy.uploads.has(image), `uploaded ${image}`);
  assert.equal(comfy.uploads.get(image)![1], 0x50, 'the PNG itself');
  assert.equal(r2.contentType, 'video/mp4', JSON.stringify(r2.json));
  assert.equal((await probeClip(r2.bytes!)).video?.codec_name, 'h264');
});

test('ComfyUI: a workflow that fails is a 500 with credits_refunded and its message', async () => {
  const a = await account();
  const q = await post(h, '/video/queue', a.key, { model: 'comfy-t2v', prompt: 'too big [[fail]]', duration: 2 });
  const r = await retrieveWhenDone(h.base, a.key, 'comfy-t2v', q.json.queue_id);
  assert.equal(r.status, 500);
  assert.equal(r.json.credits_refunded, true);
  assert.match(r.json.error, /CUDA out of memory/);
  assert.equal(await a.balance(), 5);
  assert.deepEqual(await a.usage(), []);
});
