// The image upstreams people run, each behind Lagoon through the real server, against a loopback fake that speaks its
// protocol (e2e/support/image-upstreams.ts): the OpenAI images API (with Azure's content flags), AUTOMATIC1111,
// ComfyUI (the fake checks each workflow it receives as ComfyUI would) and rembg. What reaches each upstream, what
// comes back, safe mode on the upstream's flag, and every failure released without a charge.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import sharp from 'sharp';
import {
  type ComfyFake,
  comfyImg2ImgWorkflow,
  comfyTxt2ImgWorkflow,
  type FakeServer,
  startA1111Fake,
  startComfyFake,
  startOpenAIImagesFake,
  startRembgFake,
} from '../support/image-upstreams.ts';
import { type Harness, postBytes, startHarness } from '../support/harness.ts';

const free = { input_usd: 0, output_usd: 0, input_diem: 0, output_diem: 0 };
const model = (id: string, type: string, engine: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  id,
  name: id,
  type,
  tier: 'XS',
  pricing: { ...free, per_image_usd: 0.04 },
  context_length: 1,
  engine,
  ...extra,
});

let h: Harness;
let openai: FakeServer;
let a1111: FakeServer;
let comfy: ComfyFake;
let rembg: FakeServer;
let dir: string;

before(async () => {
  [openai, a1111, comfy, rembg] = await Promise.all([
    startOpenAIImagesFake({ apiKey: 'sk-upstream' }),
    startA1111Fake({ credential: 'webui:secret' }),
    startComfyFake(),
    startRembgFake(),
  ]);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lagoon-comfy-'));
  fs.writeFileSync(path.join(dir, 'txt2img.json'), JSON.stringify(comfyTxt2ImgWorkflow(true)));
  fs.writeFileSync(path.join(dir, 'txt2img-single.json'), JSON.stringify(comfyTxt2ImgWorkflow(false)));
  fs.writeFileSync(path.join(dir, 'img2img.json'), JSON.stringify(comfyImg2ImgWorkflow()));
  const comfyEngine = (workflow: string, over: Record<string, unknown> = {}) => ({
    kind: 'comfyui',
    baseUrl: comfy.url,
    workflow: path.join(dir, workflow),
    pollMs: 10,
    ...over,
  });
  h = await startHarness({
    env: { IMAGES_KEY: 'sk-upstream', A1111_AUTH: 'webui:secret' },
    models: [
      model(
        'oa-image',
        'image',
        { kind: 'openai-images', baseUrl: openai.url, model: 'gpt-image-1', apiKeyEnv: 'IMAGES_KEY' },
        { traits: ['default'], image: { max_side: 1792, negative_prompt: false } },
      ),
      model(
        'oa-edit',
        'inpaint',
        { kind: 'openai-images', baseUrl: openai.url, model: 'gpt-image-1', apiKeyEnv: 'IMAGES_KEY' },
        { image: { max_input_images: 4 } },
      ),
      model('oa-nokey', 'image', { kind: 'openai-images', baseUrl: openai.url, apiKeyEnv: 'NOT_SET_ANYWHERE' }),
      model('oa-down', 'image', { kind: 'openai-images', baseUrl: 'http://127.0.0.1:1/v1', timeoutMs: 2000 }),
      model('sd-image', 'image', { kind: 'a1111', baseUrl: a1111.url, apiKeyEnv: 'A1111_AUTH', checkpoint: 'sdxl.safetensors', sampler: 'DPM++ 2M' }),
      model('sd-edit', 'inpaint', { kind: 'a1111', baseUrl: a1111.url, apiKeyEnv: 'A1111_AUTH', denoisingStrength: 0.4 }),
      model('sd-upscale', 'upscale', { kind: 'a1111', baseUrl: a1111.url, apiKeyEnv: 'A1111_AUTH', upscaler: '4x-UltraSharp' }),
      model('comfy-image', 'image', comfyEngine('txt2img.json')),
      model('comfy-single', 'image', comfyEngine('txt2img-single.json')),
      model('comfy-edit', 'inpaint', comfyEngine('img2img.json')),
      model('comfy-slow', 'image', comfyEngine('txt2img.json', { timeoutMs: 500 })),
      model('rembg', 'background-remove', { kind: 'rembg', baseUrl: rembg.url, model: 'u2net' }),
    ],
  });
});
after(async () => {
  await h?.close();
  await Promise.all([openai, a1111, comfy, rembg].map((f) => f?.close()));
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

const call = (p: string, key: string, body: unknown) =>
  body instanceof FormData ? postBytes(h, p, key, body) : postBytes(h, p, key, JSON.stringify(body), { 'content-type': 'application/json' });

const header = (r: { headers: Headers }, name: string) => r.headers.get(`x-service-${name}`);
const meta = (b: Buffer) => sharp(b).metadata();
const photo = (w = 320, hgt = 320) =>
  sharp({ create: { width: w, height: hgt, channels: 3, background: '#4070a0' } })
    .png()
    .toBuffer();
const usage = async (accountId: string) => {
  await h.svc.ledger.drain();
  return h.svc.store.all<any>('SELECT * FROM usage WHERE account_id = $1 ORDER BY created_at, request_id', [accountId]);
};
const last = (f: FakeServer, p: string) => f.requests.filter((r) => r.path.split('?')[0] === p).at(-1)!;
/** How much the picture varies: a blurred one varies less. */
const spread = async (b: Buffer) => (await sharp(b).removeAlpha().stats()).channels.reduce((s, c) => s + c.stdev, 0);

describe('the OpenAI images API upstream', () => {
  test('generation: model, n, size and b64_json reach it with the key; every variant comes back and is billed', async () => {
    const { key, accountId } = await h.newAccount({ usd: 10 });
    const r = await call('/image/generate', key, {
      model: 'oa-image',
      prompt: 'a harbour',
      variants: 2,
      width: 512,
      height: 512,
      style_preset: 'Anime',
      format: 'png',
    });
    assert.equal(r.status, 200, r.bytes.toString().slice(0, 300));
    const sent = last(openai, '/v1/images/generations');
    assert.equal(sent.headers.authorization, 'Bearer sk-upstream');
    assert.deepEqual([sent.json.model, sent.json.n, sent.json.size, sent.json.response_format], ['gpt-image-1', 2, '512x512', 'b64_json']);
    assert.equal(sent.json.prompt, 'a harbour, anime style', 'the style preset rides in the prompt');
    assert.equal(r.json.images.length, 2);
    assert.notEqual(r.json.images[0], r.json.images[1]);
    assert.deepEqual([(await meta(Buffer.from(r.json.images[0], 'base64'))).width, header(r, 'model-router')], [512, 'openai-images']);
    // This upstream sent no content flags: no check ran, and the answer does not claim one.
    assert.deepEqual([header(r, 'content-check'), header(r, 'is-content-violation'), header(r, 'is-blurred')], ['none', null, 'false']);
    assert.deepEqual(
      (await usage(accountId)).map((u) => [u.model_id, Number(u.quantity), Number(u.usd)]),
      [['oa-image', 2, 80_000]],
    );
  });

  test("safe mode on the upstream's own flag: flagged images are blurred unless safe_mode is off; clean ones say so", async () => {
    const { key } = await h.newAccount({ usd: 10 });
    const body = { model: 'oa-image', width: 256, height: 256, format: 'png', hide_watermark: true, return_binary: true };
    const clean = await call('/image/generate', key, { ...body, prompt: 'a cat [[checked]]' });
    assert.deepEqual([header(clean, 'content-check'), header(clean, 'is-content-violation'), header(clean, 'is-blurred')], ['upstream', 'false', 'false']);
    const blurred = await call('/image/generate', key, { ...body, prompt: 'a cat [[flag]]' });
    assert.deepEqual([header(blurred, 'content-check'), header(blurred, 'is-blurred')], ['upstream', 'true']);
    const unsafe = await call('/image/generate', key, { ...body, prompt: 'a cat [[flag]]', safe_mode: false });
    assert.equal(header(unsafe, 'is-blurred'), 'false');
    // The fake's picture has a white square in its top-left corner: sharp-edged as sent, smeared when blurred.
    const at = async (b: Buffer, x: number, y: number) => [
      ...(await sharp(b).removeAlpha().raw().toBuffer()).subarray((y * 256 + x) * 3, (y * 256 + x) * 3 + 3),
    ];
    assert.deepEqual(await at(unsafe.bytes, 60, 30), [255, 255, 255]);
    assert.ok(Math.min(...(await at(blurred.bytes, 60, 30))) < 230, 'the flagged image is blurred');
    assert.ok((await spread(blurred.bytes)) < (await spread(unsafe.bytes)));
  });

  test('failures release the hold: a content-policy refusal (422), 400, 503, 500, garbage, an unreachable or unconfigured upstream', async () => {
    const { key, accountId } = await h.newAccount({ usd: 1 });
    const cases: [Record<string, unknown>, number, string, RegExp?][] = [
      [{ model: 'oa-image', prompt: 'x [[policy]]' }, 422, 'CONTENT_POLICY_VIOLATION', /safety system/],
      [{ model: 'oa-image', prompt: 'x [[status:400]]' }, 400, 'INVALID_REQUEST', /The model rejected the request: fake status 400/],
      [{ model: 'oa-image', prompt: 'x [[status:503]]' }, 503, 'MODEL_AT_CAPACITY'],
      [{ model: 'oa-image', prompt: 'x [[status:500]]' }, 500, 'INFERENCE_FAILED'],
      [{ model: 'oa-image', prompt: 'x [[garbage]]' }, 500, 'INFERENCE_FAILED'],
      // Found by the engine check at start (lib/engines/health.ts): 503 naming the problem.
      [{ model: 'oa-down', prompt: 'x' }, 503, 'ENGINE_DOWN', /refused the connection/],
      [{ model: 'oa-nokey', prompt: 'x' }, 503, 'ENGINE_DOWN', /its API key\) is not set/],
    ];
    for (const [body, status, code, message] of cases) {
      const r = await call('/image/generate', key, { ...body, width: 256, height: 256 });
      assert.deepEqual([r.status, r.json?.code], [status, code], `${JSON.stringify(body)} → ${r.bytes.toString().slice(0, 200)}`);
      if (message) assert.match(r.json.error, message);
      if (code === 'CONTENT_POLICY_VIOLATION') assert.deepEqual([header(r, 'is-content-violation'), header(r, 'content-check')], ['true', 'upstream']);
      if (status === 503) assert.equal(r.headers.get('retry-after'), '5');
    }
    assert.equal((await usage(accountId)).length, 0);
    const b = await h.svc.ledger.balances(accountId);
    assert.deepEqual([b.usd, b.usdHeld], [1_000_000, 0]);
  });

  test('the openai client against /images/generations, and edits as multipart with image or image[]', async () => {
    const { key } = await h.newAccount({ usd: 10 });
    const client = new OpenAI({ apiKey: key, baseURL: h.base, maxRetries: 0 });
    const g = await client.images.generate({ model: 'oa-image', prompt: 'a pier', size: '1024x1536' });
    assert.deepEqual([(await meta(Buffer.from(g.data![0].b64_json!, 'base64'))).height], [1536]);
    assert.equal(last(openai, '/v1/images/generations').json.size, '1024x1536');

    const form = new FormData();
    form.set('model', 'oa-edit');
    form.set('prompt', 'add a boat');
    form.set('image', new Blob([new Uint8Array(await photo())], { type: 'image/png' }), 'p.png');
    const edit = await call('/image/edit', key, form);
    assert.equal(edit.status, 200, edit.bytes.toString().slice(0, 300));
    const sent = last(openai, '/v1/images/edits').form!;
    assert.deepEqual(
      [sent.fields.model, sent.fields.prompt, sent.fields.size, sent.fields.response_format],
      ['gpt-image-1', 'add a boat', '1024x1024', 'b64_json'],
    );
    assert.deepEqual(
      sent.files.map((f) => [f.name, f.contentType]),
      [['image', 'image/png']],
    );
    assert.deepEqual([(await meta(edit.bytes)).format, (await meta(edit.bytes)).width], ['png', 1024]);
    const multi = await call('/image/multi-edit', key, {
      modelId: 'oa-edit',
      prompt: 'combine',
      images: [(await photo()).toString('base64'), (await photo(400, 300)).toString('base64')],
    });
    assert.equal(multi.status, 200);
    assert.deepEqual(
      last(openai, '/v1/images/edits').form!.files.map((f) => f.name),
      ['image[]', 'image[]'],
    );
  });
});

describe('the AUTOMATIC1111 upstream', () => {
  test('txt2img: the parameters, the checkpoint by override_settings, Basic auth; the batch without the grid', async () => {
    const { key, accountId } = await h.newAccount({ usd: 10 });
    const r = await call('/image/generate', key, {
      model: 'sd-image',
      prompt: 'a castle',
      negative_prompt: 'fog',
      seed: 1234,
      steps: 20,
      cfg_scale: 6.5,
      width: 512,
      height: 384,
      variants: 2,
      format: 'png',
    });
    assert.equal(r.status, 200, r.bytes.toString().slice(0, 300));
    const sent = last(a1111, '/sdapi/v1/txt2img');
    assert.equal(sent.headers.authorization, `Basic ${Buffer.from('webui:secret').toString('base64')}`);
    assert.deepEqual(
      [
        sent.json.prompt,
        sent.json.negative_prompt,
        sent.json.seed,
        sent.json.steps,
        sent.json.cfg_scale,
        sent.json.width,
        sent.json.height,
        sent.json.batch_size,
      ],
      ['a castle', 'fog', 1234, 20, 6.5, 512, 384, 2],
    );
    assert.deepEqual(sent.json.override_settings, { sd_model_checkpoint: 'sdxl.safetensors' });
    assert.equal(sent.json.override_settings_restore_afterwards, true);
    assert.equal(sent.json.sampler_name, 'DPM++ 2M');
    assert.equal(r.json.images.length, 2);
    for (const b64 of r.json.images)
      assert.deepEqual([(await meta(Buffer.from(b64, 'base64'))).width, (await meta(Buffer.from(b64, 'base64'))).height], [512, 384]);
    assert.equal(header(r, 'image-seeds'), '1234,1235');
    assert.equal(Number((await usage(accountId))[0].quantity), 2);
  });

  test('img2img with a mask (multi-edit), and upscaling through extra-single-image', async () => {
    const { key } = await h.newAccount({ usd: 10 });
    const edit = await call('/image/multi-edit', key, {
      model: 'sd-edit',
      prompt: 'a red door',
      images: [(await photo()).toString('base64'), (await photo()).toString('base64')],
    });
    assert.equal(edit.status, 200, edit.bytes.toString().slice(0, 300));
    const sent = last(a1111, '/sdapi/v1/img2img').json;
    assert.deepEqual(
      [sent.prompt, sent.denoising_strength, sent.width, sent.height, sent.init_images.length, typeof sent.mask],
      ['a red door', 0.4, 1024, 1024, 1, 'string'],
    );
    const up = await call('/image/upscale', key, { model: 'sd-upscale', image: (await photo(300, 256)).toString('base64'), scale: 2 });
    assert.equal(up.status, 200, up.bytes.toString().slice(0, 300));
    const u = last(a1111, '/sdapi/v1/extra-single-image').json;
    assert.deepEqual([u.upscaler_1, u.upscaling_resize_w, u.upscaling_resize_h, u.resize_mode], ['4x-UltraSharp', 600, 512, 1]);
    assert.deepEqual([(await meta(up.bytes)).width, (await meta(up.bytes)).height, header(up, 'model-router')], [600, 512, 'automatic1111']);
  });

  test('a 422 from the web UI is the caller’s 400; its 500 is ours, released', async () => {
    const { key, accountId } = await h.newAccount({ usd: 1 });
    const bad = await call('/image/generate', key, { model: 'sd-image', prompt: 'x [[status:422]]' });
    assert.deepEqual([bad.status, bad.json.code], [400, 'INVALID_REQUEST']);
    const broken = await call('/image/generate', key, { model: 'sd-image', prompt: 'x [[status:500]]' });
    assert.equal(broken.status, 500);
    assert.equal((await usage(accountId)).length, 0);
  });
});

describe('the ComfyUI upstream', () => {
  test('the workflow is filled in (numbers as numbers), accepted by ComfyUI, followed through /history and fetched from /view', async () => {
    const { key, accountId } = await h.newAccount({ usd: 10 });
    const r = await call('/image/generate', key, {
      model: 'comfy-image',
      prompt: 'a windmill',
      negative_prompt: 'text',
      seed: 77,
      steps: 12,
      cfg_scale: 5,
      width: 640,
      height: 448,
      variants: 3,
      format: 'png',
    });
    assert.equal(r.status, 200, r.bytes.toString().slice(0, 300));
    const wf = comfy.workflows.at(-1)!;
    assert.deepEqual(wf['5'].inputs, { width: 640, height: 448, batch_size: 3 });
    assert.deepEqual([wf['3'].inputs.seed, wf['3'].inputs.steps, wf['3'].inputs.cfg, wf['3'].inputs.model], [77, 12, 5, ['4', 0]]);
    assert.equal(wf['6'].inputs.text, 'a windmill');
    assert.equal(wf['7'].inputs.text, 'blurry, text', 'a placeholder inside text is replaced as text');
    assert.equal(r.json.images.length, 3);
    const sizes = await Promise.all(
      r.json.images.map(async (b: string) => [(await meta(Buffer.from(b, 'base64'))).width, (await meta(Buffer.from(b, 'base64'))).height]),
    );
    assert.deepEqual(sizes, [
      [640, 448],
      [640, 448],
      [640, 448],
    ]);
    assert.equal(header(r, 'model-router'), 'comfyui');
    assert.equal(Number((await usage(accountId))[0].quantity), 3);
  });

  test('a workflow without {{batch_size}} runs once per variant, with consecutive seeds', async () => {
    const { key } = await h.newAccount({ usd: 10 });
    const before = comfy.workflows.length;
    const r = await call('/image/generate', key, { model: 'comfy-single', prompt: 'a bridge', seed: 500, variants: 2, width: 256, height: 256 });
    assert.equal(r.status, 200, r.bytes.toString().slice(0, 300));
    const sent = comfy.workflows.slice(before);
    assert.deepEqual(
      sent.map((w) => [w['3'].inputs.seed, w['5'].inputs.batch_size]),
      [
        [500, 1],
        [501, 1],
      ],
    );
  });

  test('an edit uploads the image first and the workflow loads it by name', async () => {
    const { key } = await h.newAccount({ usd: 10 });
    const r = await call('/image/edit', key, { model: 'comfy-edit', prompt: 'in winter', image: (await photo(400, 400)).toString('base64') });
    assert.equal(r.status, 200, r.bytes.toString().slice(0, 300));
    const upload = last(comfy, '/upload/image').form!;
    const wf = comfy.workflows.at(-1)!;
    assert.equal(wf['10'].inputs.image, upload.files[0].filename);
    assert.deepEqual([upload.fields.type, upload.fields.overwrite], ['input', 'true']);
    assert.equal(wf['6'].inputs.text, 'in winter');
    assert.deepEqual([(await meta(r.bytes)).width, (await meta(r.bytes)).height], [1024, 1024], 'the edit at the resolution asked for');
  });

  test('a run that fails, and one past its deadline (removed from the queue and interrupted), are not billed', async () => {
    const { key, accountId } = await h.newAccount({ usd: 1 });
    const failed = await call('/image/generate', key, { model: 'comfy-image', prompt: 'x [[error]]', width: 256, height: 256 });
    assert.deepEqual([failed.status, failed.json.code], [500, 'INFERENCE_FAILED']);
    const slow = await call('/image/generate', key, { model: 'comfy-slow', prompt: 'x [[hang]]', width: 256, height: 256 });
    assert.deepEqual([slow.status, slow.json.code], [504, 'REQUEST_TIMEOUT']);
    // The cancellation is sent after the answer: wait for it to land.
    for (let i = 0; i < 100 && comfy.cancelled.length < 2; i++) await new Promise((r) => setTimeout(r, 20));
    assert.ok(comfy.cancelled.length >= 2, 'deleted from the queue and interrupted');
    assert.equal((await usage(accountId)).length, 0);
    const b = await h.svc.ledger.balances(accountId);
    assert.deepEqual([b.usd, b.usdHeld], [1_000_000, 0]);
  });
});

describe('the rembg upstream', () => {
  test('the image goes up as `file` with the model; the cut-out comes back as a PNG with transparency', async () => {
    const { key, accountId } = await h.newAccount({ usd: 10 });
    const r = await call('/image/background-remove', key, { image: (await photo(200, 100)).toString('base64') });
    assert.equal(r.headers.get('content-type'), 'image/png');
    assert.equal(r.status, 200, r.bytes.toString().slice(0, 300));
    const sent = last(rembg, '/api/remove').form!;
    assert.deepEqual([sent.files[0].name, sent.fields.model], ['file', 'u2net']);
    const { data, info } = await sharp(r.bytes).raw().toBuffer({ resolveWithObject: true });
    assert.deepEqual([info.width, info.height, info.channels], [200, 100, 4]);
    assert.deepEqual([data[(50 * 200 + 10) * 4 + 3], data[(50 * 200 + 190) * 4 + 3]], [0, 255]);
    assert.deepEqual(
      (await usage(accountId)).map((u) => [u.model_id, u.endpoint]),
      [['rembg', '/image/background-remove']],
    );
  });
});
