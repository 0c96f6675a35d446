// The image endpoints end to end, on the engines that run on this server: the demo generator, editor and background
// remover, ESRGAN (onnxruntime, in its worker) and lanczos resampling. Through the real server: JSON, binary and
// multipart bodies; every documented limit and its 400; billing per image (by model, size and steps) and nothing
// billed when the engine fails; 401/402/415/429; a signed-in wallet with X-Balance-Remaining; the openai client's
// images.generate unmodified; and what /models says about these models.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import sharp from 'sharp';
import { grantUsd } from '../../lib/billing/ledger.ts';
import { ensureWallet } from '../../lib/wallet/wallets.ts';
import { get, type Harness, postBytes, startHarness } from '../support/harness.ts';
import { createTestDatabase } from '../support/pg.ts';
import { evmWallet, signInHeader, walletEnv } from '../wallet/clients.ts';

const RPM = 8;
const free = { input_usd: 0, output_usd: 0, input_diem: 0, output_diem: 0 };

let h: Harness;
let files: http.Server;
let filesUrl: string;
const served = new Map<string, Buffer>();

before(async () => {
  // Input images by URL: a loopback file server (allowed by LAGOON_FETCH_ALLOW_HOSTS=127.0.0.1, as an intranet host).
  files = http.createServer((req, res) => {
    const body = served.get(req.url ?? '');
    if (!body) res.writeHead(404).end();
    else res.writeHead(200, { 'content-type': 'image/png', 'content-length': body.length }).end(body);
  });
  await new Promise<void>((r) => files.listen(0, '127.0.0.1', r));
  filesUrl = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
  h = await startHarness({
    env: { ...walletEnv({}), LAGOON_FETCH_ALLOW_HOSTS: '127.0.0.1' },
    limits: { windowSeconds: 60, image: { default: { rpm: RPM } } },
    models: [
      {
        id: 'demo-image',
        name: 'Demo image',
        description: 'The demo generator',
        type: 'image',
        tier: 'XS',
        demo: true,
        // 0.01 per image, 0.001 per step, 0.05 for a 2048² image: every charge is visible in the balance.
        pricing: { ...free, per_image_usd: 0.01, per_image_by_size: { '2048x2048': { usd: 0.05 } }, per_image_step_usd: 0.001 },
        context_length: 1500,
        traits: ['default'],
        image: { max_side: 2048, aspect_ratios: ['1:1', '16:9', '9:16'], resolutions: ['1K', '2K'], steps: { default: 8, max: 30 } },
        engine: { kind: 'demo-image' },
      },
      {
        id: 'strict-image',
        name: 'Strict image',
        type: 'image',
        tier: 'XS',
        pricing: { ...free, per_image_by_size: { '512x512': { usd: 0.02 }, '1024x1024': { usd: 0.04 } } },
        context_length: 100,
        image: {
          prompt_character_limit: 100,
          max_side: 1024,
          width_height_divisor: 64,
          steps: { default: 4, max: 10 },
          max_variants: 2,
          negative_prompt: false,
        },
        deprecation: { date: '2027-06-30', replacement: 'demo-image' },
        engine: { kind: 'demo-image' },
      },
      {
        id: 'demo-edit',
        name: 'Demo edit',
        type: 'inpaint',
        tier: 'XS',
        demo: true,
        pricing: { ...free, per_image_usd: 0.03 },
        context_length: 1,
        traits: ['default'],
        image: { max_input_images: 3, resolutions: ['1K', '2K'], input_max_bytes: 2 * 1024 * 1024 },
        engine: { kind: 'demo-edit' },
      },
      {
        id: 'esrgan',
        name: 'ESRGAN',
        type: 'upscale',
        tier: 'XS',
        pricing: { ...free, per_image_usd: 0.02 },
        context_length: 1,
        traits: ['default'],
        image: { input_max_pixels: 262144 },
        engine: { kind: 'esrgan' },
      },
      {
        id: 'lanczos',
        name: 'Lanczos',
        type: 'upscale',
        tier: 'XS',
        pricing: { ...free, per_image_usd: 0.005 },
        context_length: 1,
        image: { max_output_pixels: 1_500_000 },
        engine: { kind: 'sharp-upscale' },
      },
      {
        id: 'demo-bg',
        name: 'Demo background removal',
        type: 'background-remove',
        tier: 'XS',
        demo: true,
        pricing: { ...free, per_image_usd: 0.04 },
        context_length: 1,
        engine: { kind: 'demo-background-remove' },
      },
    ],
  });
});
after(async () => {
  await h?.close();
  await new Promise((r) => files?.close(r));
});

const usageRows = async (accountId: string) => {
  await h.svc.ledger.drain();
  return h.svc.store.all<any>('SELECT * FROM usage WHERE account_id = $1 ORDER BY created_at, request_id', [accountId]);
};

/** Balance and held amount in micro-USD. */
const balance = async (accountId: string) => {
  const b = await h.svc.ledger.balances(accountId);
  return [b.usd, b.usdHeld];
};

/** POST any body; the answer's bytes, and its JSON when it is JSON. */
const send = (path: string, key: string | undefined, body: BodyInit, headers: Record<string, string> = {}) => postBytes(h, path, key, body, headers);
const postJson = (path: string, key: string | undefined, body: unknown, headers: Record<string, string> = {}) =>
  send(path, key, JSON.stringify(body), { 'content-type': 'application/json', ...headers });

/** A test picture: a red disc and a dark bar on a flat light background. */
async function picture(width: number, height = width, opts: { alpha?: boolean; format?: 'png' | 'jpeg' | 'webp' } = {}): Promise<Buffer> {
  const r = Math.min(width, height) / 4;
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">${opts.alpha ? '' : `<rect width="${width}" height="${height}" fill="#f0f0f0"/>`}
    <circle cx="${width / 2}" cy="${height / 2}" r="${r}" fill="#d01010"/><rect x="${width * 0.1}" y="${height * 0.1}" width="${width * 0.05}" height="${height * 0.6}" fill="#202020"/></svg>`;
  const img = opts.alpha ? sharp(Buffer.from(svg)) : sharp(Buffer.from(svg)).removeAlpha();
  return img.toFormat(opts.format ?? 'png').toBuffer();
}

const meta = (bytes: Buffer) => sharp(bytes).metadata();
/** A Blob of the bytes (copied: TypeScript's Blob takes only ArrayBuffer-backed views). */
const blob = (bytes: Buffer, type?: string) => new Blob([new Uint8Array(bytes)], type ? { type } : {});
const header = (r: { headers: Headers }, name: string) => r.headers.get(`x-service-${name}`);

describe('POST /image/generate', () => {
  test('JSON: base64 WebP images of the default size, the response shape and headers, billed per image by steps', async () => {
    const { key, accountId } = await h.newAccount({ usd: 10 });
    const r = await postJson('/image/generate', key, { model: 'demo-image', prompt: 'a lagoon at sunset', seed: 42 });
    assert.equal(r.status, 200, r.bytes.toString());
    assert.equal(r.json.id, `generate-image-${r.headers.get('cf-ray')}`);
    assert.equal(r.json.images.length, 1);
    const img = await meta(Buffer.from(r.json.images[0], 'base64'));
    assert.deepEqual([img.format, img.width, img.height], ['webp', 1024, 1024]);
    assert.deepEqual(Object.keys(r.json.timing).sort(), ['inferenceDuration', 'inferencePreprocessingTime', 'inferenceQueueTime', 'total']);
    assert.equal(r.json.request.seed, 42);
    assert.equal(r.json.request.steps, 8);
    assert.equal(header(r, 'model-id'), 'demo-image');
    assert.equal(header(r, 'model-router'), 'lagoon-demo-image');
    assert.equal(header(r, 'image-seeds'), '42');
    assert.equal(header(r, 'is-blurred'), 'false');
    // No classifier runs for the demo engine: the answer says so and claims no verdict.
    assert.equal(header(r, 'content-check'), 'none');
    assert.equal(header(r, 'is-content-violation'), null);
    assert.equal(r.headers.get('x-ratelimit-limit-requests'), String(RPM));
    const rows = await usageRows(accountId);
    assert.deepEqual(
      rows.map((u) => [u.endpoint, u.model_id, u.unit, Number(u.quantity), Number(u.usd)]),
      [['/image/generate', 'demo-image', 'image', 1, 10_000 + 8 * 1000]],
    );
    assert.equal(rows[0].request_id, r.headers.get('cf-ray'));
    assert.deepEqual(await balance(accountId), [10_000_000 - 18_000, 0]);
  });

  test('deterministic in prompt and seed; variants have consecutive seeds and are billed each', async () => {
    const { key, accountId } = await h.newAccount({ usd: 10 });
    const body = { model: 'demo-image', prompt: 'blue mountains', seed: 7, width: 256, height: 256, steps: 2, format: 'png' };
    const a = await postJson('/image/generate', key, body);
    const b = await postJson('/image/generate', key, body);
    assert.equal(a.json.images[0], b.json.images[0], 'same prompt and seed, same image');
    const three = await postJson('/image/generate', key, { ...body, seed: 6, variants: 3 });
    assert.equal(three.status, 200);
    assert.equal(three.json.images.length, 3);
    assert.equal(header(three, 'image-seeds'), '6,7,8');
    assert.equal(three.json.images[1], a.json.images[0], 'variant 2 of seed 6 is seed 7');
    assert.notEqual(three.json.images[0], three.json.images[1]);
    const rows = await usageRows(accountId);
    assert.deepEqual(
      rows.map((u) => [Number(u.quantity), Number(u.usd)]),
      [
        [1, 12_000],
        [1, 12_000],
        [3, 36_000],
      ],
    );
    // No seed (or 0) is a random one, reported in the header.
    const random = await postJson('/image/generate', key, { ...body, seed: 0 });
    assert.match(header(random, 'image-seeds') ?? '', /^[1-9]\d*$/);
  });

  test('return_binary: the image itself, in the asked format; size from aspect_ratio and resolution, priced by size', async () => {
    const { key, accountId } = await h.newAccount({ usd: 10 });
    const r = await postJson('/image/generate', key, {
      model: 'demo-image',
      prompt: 'a city at night',
      return_binary: true,
      format: 'jpeg',
      aspect_ratio: '16:9',
    });
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('content-type'), 'image/jpeg');
    assert.match(r.headers.get('content-disposition') ?? '', /^inline; filename="generate-.+\.jpg"$/);
    const m = await meta(r.bytes);
    assert.deepEqual([m.format, m.width, m.height], ['jpeg', 1024, 576]);
    const big = await postJson('/image/generate', key, { model: 'demo-image', prompt: 'snow', return_binary: true, format: 'png', resolution: '2K', steps: 1 });
    assert.deepEqual([(await meta(big.bytes)).width, (await meta(big.bytes)).height], [2048, 2048]);
    const rows = await usageRows(accountId);
    assert.deepEqual(
      rows.map((u) => Number(u.usd)),
      [10_000 + 8000, 50_000 + 1000],
      'the 2048² image at its size price',
    );
  });

  test('styles, the watermark, EXIF metadata and cfg_scale change the output as they say', async () => {
    const { key } = await h.newAccount({ usd: 10 });
    const base = { model: 'demo-image', prompt: 'a forest', seed: 3, width: 256, height: 256, steps: 2, format: 'png', return_binary: true };
    const plain = await postJson('/image/generate', key, base);
    const styled = await postJson('/image/generate', key, { ...base, style_preset: 'Anime' });
    const hidden = await postJson('/image/generate', key, { ...base, hide_watermark: true });
    const exif = await postJson('/image/generate', key, { ...base, prompt: 'a forest (in autumn)', embed_exif_metadata: true });
    const vivid = await postJson('/image/generate', key, { ...base, cfg_scale: 16 });
    const raw = async (b: Buffer) => sharp(b).removeAlpha().raw().toBuffer();
    assert.notDeepEqual(await raw(plain.bytes), await raw(styled.bytes));
    const saturation = async (b: Buffer) => {
      const { channels } = await sharp(b).removeAlpha().stats();
      return Math.max(...channels.map((c) => c.mean)) - Math.min(...channels.map((c) => c.mean));
    };
    assert.ok((await saturation(vivid.bytes)) > (await saturation(plain.bytes)), 'a higher cfg_scale pushes the colours');
    // The watermark sits in the bottom-right corner: only there do the two differ.
    const [p, q] = [await raw(plain.bytes), await raw(hidden.bytes)];
    const differs = (x0: number, y0: number, x1: number, y1: number) => {
      for (let y = y0; y < y1; y++)
        for (let x = x0; x < x1; x++) for (let c = 0; c < 3; c++) if (p[(y * 256 + x) * 3 + c] !== q[(y * 256 + x) * 3 + c]) return true;
      return false;
    };
    assert.ok(differs(200, 200, 256, 256), 'the mark is in the corner');
    assert.ok(!differs(0, 0, 200, 200), 'and nowhere else');
    assert.equal((await meta(plain.bytes)).exif, undefined);
    const desc = (await meta(exif.bytes)).exif?.toString('latin1') ?? '';
    assert.ok(desc.includes('a forest (in autumn)\0') && desc.includes('model demo-image, seed 3'), 'EXIF holds the prompt, the model and the seed');
  });

  test('every documented limit is a 400 naming the field; nothing is held or billed', async () => {
    const { key, accountId } = await h.newAccount({ usd: 10 });
    const ok = { model: 'demo-image', prompt: 'x' };
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ ...ok, prompt: '' }, 'INVALID_REQUEST', /prompt must not be empty/],
      [{ ...ok, prompt: 'p'.repeat(7501) }, 'INVALID_REQUEST', /prompt/],
      [{ ...ok, prompt: 'p'.repeat(1501) }, 'INVALID_REQUEST', /prompt is 1501 characters; model demo-image takes at most 1500/],
      [{ model: 'strict-image', prompt: 'p'.repeat(101) }, 'INVALID_REQUEST', /at most 100/],
      [{ model: 'strict-image', prompt: 'x', negative_prompt: 'y' }, 'INVALID_REQUEST', /does not take negative_prompt/],
      [{ ...ok, negative_prompt: 'n'.repeat(7501) }, 'INVALID_REQUEST', /negative_prompt/],
      [{ ...ok, width: 1281 }, 'INVALID_REQUEST', /width/],
      [{ ...ok, width: 0 }, 'INVALID_REQUEST', /width/],
      [{ ...ok, height: 1000.5 }, 'INVALID_REQUEST', /height/],
      [{ ...ok, width: 1020 }, 'INVALID_REQUEST', /multiples of 8/],
      [{ model: 'strict-image', prompt: 'x', width: 512, height: 768 }, 'INVALID_REQUEST', /generates only these sizes: 512x512, 1024x1024/],
      [{ ...ok, steps: 31 }, 'INVALID_REQUEST', /steps must be at most 30/],
      [{ ...ok, steps: 0 }, 'INVALID_REQUEST', /steps/],
      [{ ...ok, variants: 5 }, 'INVALID_REQUEST', /variants/],
      [{ model: 'strict-image', prompt: 'x', width: 512, height: 512, variants: 3 }, 'INVALID_REQUEST', /variants must be at most 2/],
      [{ ...ok, variants: 2, return_binary: true }, 'INVALID_REQUEST', /variants above 1 need return_binary=false/],
      [{ ...ok, seed: 1_000_000_000 }, 'INVALID_REQUEST', /seed/],
      [{ ...ok, cfg_scale: 0 }, 'INVALID_REQUEST', /cfg_scale/],
      [{ ...ok, cfg_scale: 20.5 }, 'INVALID_REQUEST', /cfg_scale/],
      [{ ...ok, format: 'gif' }, 'INVALID_REQUEST', /format/],
      [{ ...ok, style_preset: 'Cubism' }, 'INVALID_REQUEST', /style_preset must be one of GET \/image\/styles: Anime, Photographic/],
      [{ ...ok, aspect_ratio: '4:3' }, 'INVALID_REQUEST', /aspect_ratio must be one of 1:1, 16:9, 9:16/],
      [{ ...ok, resolution: '4K' }, 'INVALID_REQUEST', /resolution must be one of 1K, 2K/],
      [{ ...ok, aspect_ratio: '1:1', width: 512 }, 'INVALID_REQUEST', /not both/],
      [{ model: 'strict-image', prompt: 'x', aspect_ratio: '1:1' }, 'INVALID_REQUEST', /does not take aspect_ratio/],
      [{ ...ok, quality: 'high' }, 'INVALID_REQUEST', /no quality levels/],
      [{ ...ok, lora_strength: 50 }, 'INVALID_REQUEST', /does not use LoRAs/],
      [{ ...ok, lora_strength: 101 }, 'INVALID_REQUEST', /lora_strength/],
      [{ ...ok, enhance_prompt: true }, 'INVALID_REQUEST', /Prompt enhancement is not available/],
      [{ ...ok, enable_web_search: true }, 'INVALID_REQUEST', /Web search/],
      [{ ...ok, style_references: [{ image: 'x' }] }, 'INVALID_REQUEST', /no style references/],
      [{ ...ok, inpaint: { strength: 50 } }, 'INVALID_REQUEST', /inpaint was disabled/],
      [{ ...ok, surprise: 1 }, 'INVALID_REQUEST', /Unrecognized key\(s\): surprise/],
      [{ prompt: 'x' }, 'INVALID_REQUEST', /model/],
      [{ model: 'scripted-model', prompt: 'x' }, 'INVALID_MODEL', /scripted-model is a text model, not an image generation model/],
      [{ model: 'esrgan', prompt: 'x' }, 'INVALID_MODEL', /not an image generation model/],
    ];
    for (const [body, code, message] of cases) {
      const r = await postJson('/image/generate', key, body);
      assert.equal(r.status, 400, `${JSON.stringify(body).slice(0, 90)} → ${r.bytes.toString().slice(0, 200)}`);
      assert.equal(r.json.code, code);
      assert.match(r.json.error, message);
    }
    const missing = await postJson('/image/generate', key, { model: 'no-such-model', prompt: 'x' });
    assert.deepEqual([missing.status, missing.json.code], [404, 'MODEL_NOT_FOUND']);
    const notObject = await postJson('/image/generate', key, [1, 2]);
    assert.equal(notObject.status, 400);
    const form = new FormData();
    form.set('prompt', 'x');
    assert.equal((await send('/image/generate', key, form)).status, 415, 'generation is JSON only');
    assert.equal((await usageRows(accountId)).length, 0);
    assert.deepEqual(await balance(accountId), [10_000_000, 0]);
  });

  test('a deprecated model says so in its headers', async () => {
    const { key } = await h.newAccount({ usd: 10 });
    const r = await postJson('/image/generate', key, { model: 'strict-image', prompt: 'x', width: 512, height: 512 });
    assert.equal(r.status, 200);
    assert.equal(header(r, 'deprecated'), 'true');
    assert.equal(header(r, 'deprecated-replacement'), 'demo-image');
    assert.equal(header(r, 'model-deprecation-date'), '2027-06-30');
    assert.match(header(r, 'model-deprecation-warning') ?? '', /deprecated/);
  });
});

describe('POST /images/generations and the openai client', () => {
  test('images.generate unmodified: b64_json PNG by default, a data: URL, other formats; OpenAI names fall back', async () => {
    const { key, accountId } = await h.newAccount({ usd: 10 });
    const client = new OpenAI({ apiKey: key, baseURL: h.base, maxRetries: 0 });
    const r = await client.images.generate({ model: 'dall-e-3', prompt: 'a lighthouse', size: '1024x1024' });
    assert.ok(r.created > 1_700_000_000);
    const png = Buffer.from(r.data![0].b64_json!, 'base64');
    assert.deepEqual([(await meta(png)).format, (await meta(png)).width], ['png', 1024]);
    const url = await client.images.generate({ prompt: 'a lighthouse', size: '512x512', response_format: 'url', output_format: 'webp' });
    assert.match(url.data![0].url!, /^data:image\/webp;base64,/);
    const small = await meta(Buffer.from(url.data![0].url!.split(',')[1], 'base64'));
    assert.deepEqual([small.format, small.width, small.height], ['webp', 512, 512]);
    await assert.rejects(client.images.generate({ prompt: 'x', n: 2 }), (e: any) => e.status === 400 && /n must be 1/.test(e.message));
    await assert.rejects(client.images.generate({ prompt: 'p'.repeat(1501) }), (e: any) => e.status === 400);
    const landscape = await client.images.generate({ prompt: 'a lighthouse', size: '1792x1024', model: 'demo-image' });
    assert.deepEqual(
      [(await meta(Buffer.from(landscape.data![0].b64_json!, 'base64'))).width, (await meta(Buffer.from(landscape.data![0].b64_json!, 'base64'))).height],
      [1792, 1024],
    );
    const rows = await usageRows(accountId);
    assert.deepEqual(
      rows.map((u) => [u.endpoint, u.model_id, Number(u.quantity)]),
      [
        ['/images/generations', 'demo-image', 1],
        ['/images/generations', 'demo-image', 1],
        ['/images/generations', 'demo-image', 1],
      ],
    );
  });

  test('the OpenAI form: sizes, moderation, null fields and the ignored ones', async () => {
    const { key } = await h.newAccount({ usd: 10 });
    const r = await postJson('/images/generations', key, {
      prompt: 'x',
      model: null,
      n: 1,
      size: 'auto',
      quality: 'hd',
      style: 'vivid',
      background: 'auto',
      user: 'u1',
      moderation: 'low',
      output_format: 'jpeg',
    });
    assert.equal(r.status, 200, r.bytes.toString());
    assert.equal((await meta(Buffer.from(r.json.data[0].b64_json, 'base64'))).format, 'jpeg');
    for (const [body, field] of [
      [{ prompt: 'x', size: '100x100' }, /size/],
      [{ prompt: 'x', response_format: 'png' }, /response_format/],
      [{ prompt: 'x', moderation: 'high' }, /moderation/],
      [{ prompt: 'x', stream: true }, /streaming image generation is not supported/],
      [{ prompt: 'x', extra: 1 }, /Unrecognized key/],
      [{ model: 'demo-image' }, /prompt/],
    ] as const) {
      const bad = await postJson('/images/generations', key, body);
      assert.equal(bad.status, 400, JSON.stringify(body));
      assert.match(bad.json.error, field);
    }
  });
});

describe('POST /image/upscale', () => {
  test('ESRGAN on a 256² picture: a 512² PNG that differs from plain resampling; billed once', async () => {
    const { key, accountId } = await h.newAccount({ usd: 10 });
    const input = await picture(256);
    const r = await postJson('/image/upscale', key, { image: input.toString('base64') });
    assert.equal(r.status, 200, r.bytes.toString().slice(0, 300));
    assert.equal(r.headers.get('content-type'), 'image/png');
    assert.equal(header(r, 'model-id'), 'esrgan');
    assert.equal(header(r, 'model-router'), 'esrgan-onnxruntime');
    const m = await meta(r.bytes);
    assert.deepEqual([m.format, m.width, m.height], ['png', 512, 512]);
    const ours = await sharp(r.bytes).removeAlpha().raw().toBuffer();
    const lanczos = await sharp(input).resize(512, 512, { kernel: 'lanczos3' }).raw().toBuffer();
    let diff = 0;
    for (let i = 0; i < ours.length; i++) diff += Math.abs(ours[i] - lanczos[i]);
    assert.ok(diff / ours.length > 0.5, `not plain lanczos3 (mean difference ${(diff / ours.length).toFixed(2)})`);
    const rows = await usageRows(accountId);
    assert.deepEqual(
      rows.map((u) => [u.endpoint, u.model_id, u.unit, Number(u.quantity), Number(u.usd)]),
      [['/image/upscale', 'esrgan', 'image', 1, 20_000]],
    );
  });

  test('a larger image goes to the resampling model; multipart uploads; scale 3, and an output reduced to the limit', async () => {
    const { key } = await h.newAccount({ usd: 10 });
    const form = new FormData();
    // 800×600 is more than ESRGAN's 512² input limit.
    form.set('image', blob(await picture(800, 600, { format: 'jpeg' }), 'image/jpeg'), 'big.jpg');
    form.set('scale', '3');
    const r = await send('/image/upscale', key, form);
    assert.equal(r.status, 200, r.bytes.toString().slice(0, 300));
    assert.equal(header(r, 'model-id'), 'lanczos');
    const m = await meta(r.bytes);
    // 2400×1800 would pass lanczos's 1,500,000-pixel output: it is reduced to fit, keeping the ratio.
    assert.equal(m.format, 'png');
    assert.ok(m.width! * m.height! <= 1_500_000 && m.width! * m.height! > 1_490_000, `${m.width}×${m.height}`);
    assert.ok(Math.abs(m.width! / m.height! - 4 / 3) < 0.01);
    const named = await postJson('/image/upscale', key, { image: (await picture(300)).toString('base64'), model: 'lanczos', scale: 2.5 });
    assert.deepEqual([(await meta(named.bytes)).width, header(named, 'model-id')], [750, 'lanczos']);
  });

  test('limits: the smallest input, a non-image, a damaged file, the scale range, wrong types', async () => {
    const { key, accountId } = await h.newAccount({ usd: 10 });
    const cases: [unknown, number, string, RegExp][] = [
      [{ image: (await picture(200)).toString('base64') }, 400, 'INVALID_REQUEST', /200×200 \(40000 pixels\); at least 65536 pixels are needed/],
      [{ image: Buffer.from('just some text, not an image').toString('base64') }, 400, 'UNSUPPORTED_FILE', /must be a PNG, JPEG, WebP or GIF/],
      [{ image: (await picture(300)).subarray(0, 60).toString('base64') }, 400, 'CORRUPTED_FILE', /could not be read/],
      [{ image: '@@@ not base64 @@@' }, 400, 'INVALID_REQUEST', /image must be base64, a data: URL or an http\(s\) URL/],
      [{ image: (await picture(300)).toString('base64'), scale: 1.5 }, 400, 'INVALID_REQUEST', /scale/],
      [{ image: (await picture(300)).toString('base64'), scale: 5 }, 400, 'INVALID_REQUEST', /scale/],
      [{ image: 12 }, 400, 'INVALID_REQUEST', /image/],
      [{}, 400, 'INVALID_REQUEST', /image/],
      [{ image: (await picture(300)).toString('base64'), model: 'demo-image' }, 400, 'INVALID_MODEL', /not an upscale model/],
    ];
    for (const [body, status, code, message] of cases) {
      const r = await postJson('/image/upscale', key, body);
      assert.equal(r.status, status, `${JSON.stringify(body).slice(0, 80)} → ${r.bytes.toString().slice(0, 200)}`);
      assert.equal(r.json.code, code);
      assert.match(r.json.error, message);
    }
    // Creativity is clamped, as the public API does, rather than refused.
    const clamped = await postJson('/image/upscale', key, { image: (await picture(300)).toString('base64'), model: 'lanczos', creativity: 5 });
    assert.equal(clamped.status, 200);
    assert.equal((await send('/image/upscale', key, 'image=x', { 'content-type': 'text/plain' })).status, 415);
    const twoFiles = new FormData();
    twoFiles.append('image', blob(await picture(300)), 'a.png');
    twoFiles.append('image', blob(await picture(300)), 'b.png');
    const two = await send('/image/upscale', key, twoFiles);
    assert.equal(two.status, 400);
    assert.match(two.json.error, /At most 1 file/);
    assert.equal((await usageRows(accountId)).length, 1, 'only the clamped request was billed');
  });
});

describe('POST /image/edit and /image/multi-edit', () => {
  test('JSON with base64, a data: URL or a URL, and multipart: the edit is applied; the format follows the resolution', async () => {
    const { key, accountId } = await h.newAccount({ usd: 10 });
    const input = await picture(400, 300);
    served.set('/photo.png', input);
    const bodies: [string, BodyInit, Record<string, string>][] = [
      ['base64', JSON.stringify({ prompt: 'make it black and white', image: input.toString('base64') }), { 'content-type': 'application/json' }],
      [
        'data URL',
        JSON.stringify({ prompt: 'make it black and white', image: `data:image/png;base64,${input.toString('base64')}` }),
        { 'content-type': 'application/json' },
      ],
      ['URL', JSON.stringify({ prompt: 'make it black and white', image: `${filesUrl}/photo.png` }), { 'content-type': 'application/json' }],
    ];
    const form = new FormData();
    form.set('prompt', 'make it black and white');
    form.set('image', blob(input, 'image/png'), 'photo.png');
    bodies.push(['multipart', form, {}]);
    for (const [what, body, headers] of bodies) {
      const r = await send('/image/edit', key, body, headers);
      assert.equal(r.status, 200, `${what}: ${r.bytes.toString().slice(0, 200)}`);
      assert.equal(r.headers.get('content-type'), 'image/png', '1K edits are PNG');
      assert.equal(header(r, 'model-id'), 'demo-edit');
      const m = await meta(r.bytes);
      assert.deepEqual([m.width, m.height], [1024, 768], `${what}: the input's ratio at 1K`);
      const { data } = await sharp(r.bytes).removeAlpha().raw().toBuffer({ resolveWithObject: true });
      for (let p = 0; p < data.length; p += 3 * 1009) assert.ok(data[p] === data[p + 1] && data[p + 1] === data[p + 2], `${what}: grey`);
    }
    const wide = await postJson('/image/edit', key, {
      prompt: 'sepia',
      image: input.toString('base64'),
      aspect_ratio: '16:9',
      resolution: '2K',
      modelId: 'demo-edit',
    });
    assert.equal(wide.headers.get('content-type'), 'image/jpeg', '2K edits are JPEG');
    assert.deepEqual([(await meta(wide.bytes)).width, (await meta(wide.bytes)).height], [2048, 1152]);
    const webp = await postJson('/image/edit', key, { prompt: 'x', image: input.toString('base64'), output_format: 'jpg' });
    assert.equal(webp.headers.get('content-type'), 'image/jpeg');
    const rows = await usageRows(accountId);
    assert.deepEqual([rows.length, rows.every((u) => u.endpoint === '/image/edit' && Number(u.usd) === 30_000)], [6, true]);
  });

  test('limits: pixels, bytes, type, URL safety, prompt, model and modelId', async () => {
    const { key, accountId } = await h.newAccount({ usd: 10 });
    const ok = (await picture(300)).toString('base64');
    const cases: [unknown, string, RegExp][] = [
      [{ prompt: 'x', image: (await picture(100)).toString('base64') }, 'INVALID_REQUEST', /at least 65536 pixels/],
      [{ prompt: 'x', image: Buffer.alloc(3 * 1024 * 1024, 7).toString('base64') }, 'FILE_TOO_LARGE', /image is larger than 2 MB/],
      [{ prompt: 'x', image: Buffer.from('GIF89a but not really').toString('base64') }, 'CORRUPTED_FILE', /could not be read/],
      [{ prompt: 'x', image: `http://localhost:${new URL(filesUrl).port}/photo.png` }, 'INVALID_REQUEST', /image: .*(private|local|loopback|not allowed)/i],
      [{ prompt: 'x', image: `${filesUrl}/missing.png` }, 'INVALID_REQUEST', /answered HTTP 404/],
      [{ prompt: 'x', image: 'ftp://example.com/a.png' }, 'INVALID_REQUEST', /image must be base64/],
      [{ prompt: '', image: ok }, 'INVALID_REQUEST', /prompt must not be empty/],
      [{ prompt: 'p'.repeat(32_769), image: ok }, 'INVALID_REQUEST', /prompt/],
      [{ image: ok }, 'INVALID_REQUEST', /prompt/],
      [{ prompt: 'x' }, 'INVALID_REQUEST', /image/],
      [{ prompt: 'x', image: ok, aspect_ratio: '5:4' }, 'INVALID_REQUEST', /aspect_ratio must be one of/],
      [{ prompt: 'x', image: ok, resolution: '4K' }, 'INVALID_REQUEST', /resolution must be one of 1K, 2K/],
      [{ prompt: 'x', image: ok, output_format: 'gif' }, 'INVALID_REQUEST', /output_format/],
      [{ prompt: 'x', image: ok, model: 'demo-edit', modelId: 'other' }, 'INVALID_REQUEST', /different models/],
      [{ prompt: 'x', image: ok, model: 'demo-image' }, 'INVALID_MODEL', /not an image edit/],
      [{ prompt: 'x', image: ok, quality: 'high' }, 'INVALID_REQUEST', /no quality levels/],
    ];
    for (const [body, code, message] of cases) {
      const r = await postJson('/image/edit', key, body);
      assert.equal(r.status, 400, `${JSON.stringify(body).slice(0, 80)} → ${r.bytes.toString().slice(0, 200)}`);
      assert.equal(r.json.code, code);
      assert.match(r.json.error, message);
    }
    assert.equal((await usageRows(accountId)).length, 0);
  });

  test('multi-edit: a transparent layer goes over the base; multipart images[]; more images than the model takes is a 400', async () => {
    const { key } = await h.newAccount({ usd: 10 });
    const base = await picture(300);
    // A layer that is transparent except for a blue square in its top-left quarter.
    const layer = await sharp({ create: { width: 300, height: 300, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } })
      .composite([{ input: { create: { width: 150, height: 150, channels: 4, background: { r: 0, g: 0, b: 255, alpha: 1 } } }, left: 0, top: 0 }])
      .png()
      .toBuffer();
    const r = await postJson('/image/multi-edit', key, { prompt: 'brighter', images: [base.toString('base64'), layer.toString('base64')], resolution: '1K' });
    assert.equal(r.status, 200, r.bytes.toString().slice(0, 300));
    const { data, info } = await sharp(r.bytes).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    const px = (x: number, y: number) => [...data.subarray((y * info.width + x) * 3, (y * info.width + x) * 3 + 3)];
    assert.ok(px(100, 100)[2] > 200 && px(100, 100)[2] - px(100, 100)[0] > 120, `the layer's blue is on top: ${px(100, 100)}`);
    assert.ok(px(1000, 1000)[0] > 200, 'the base shows elsewhere');
    const form = new FormData();
    form.set('prompt', 'invert');
    form.append('images[]', blob(base), 'a.png');
    form.append('images[]', blob(layer), 'b.png');
    const multi = await send('/image/multi-edit', key, form);
    assert.equal(multi.status, 200, multi.bytes.toString().slice(0, 300));
    const four = await postJson('/image/multi-edit', key, { prompt: 'x', images: Array(4).fill(base.toString('base64')) });
    assert.equal(four.status, 400);
    assert.match(four.json.error, /at most 3 image/);
    const textImages = new FormData();
    textImages.set('prompt', 'x');
    textImages.set('images', base.toString('base64'));
    assert.equal((await send('/image/multi-edit', key, textImages)).status, 400, 'multipart takes image files only');
    assert.equal((await postJson('/image/multi-edit', key, { prompt: 'x', images: [] })).json.error.includes('at least one image'), true);
  });
});

describe('POST /image/background-remove', () => {
  test('a flat background becomes transparent (image or image_url); a PNG with alpha; billed once', async () => {
    const { key, accountId } = await h.newAccount({ usd: 10 });
    const input = await picture(320, 240, { format: 'jpeg' });
    served.set('/product.jpg', input);
    for (const body of [{ image: input.toString('base64') }, { image_url: `${filesUrl}/product.jpg` }]) {
      const r = await postJson('/image/background-remove', key, body);
      assert.equal(r.status, 200, r.bytes.toString().slice(0, 300));
      assert.equal(r.headers.get('content-type'), 'image/png');
      const { data, info } = await sharp(r.bytes).raw().toBuffer({ resolveWithObject: true });
      assert.deepEqual([info.width, info.height, info.channels], [320, 240, 4]);
      assert.equal(data[3], 0, 'the corner is transparent');
      assert.equal(data[(120 * 320 + 160) * 4 + 3], 255, 'the subject is opaque');
    }
    assert.deepEqual(
      (await usageRows(accountId)).map((u) => [u.endpoint, Number(u.usd)]),
      [
        ['/image/background-remove', 40_000],
        ['/image/background-remove', 40_000],
      ],
    );
  });

  test('an image the demo cannot handle is refused and nothing is billed (the hold is released)', async () => {
    const { key, accountId } = await h.newAccount({ usd: 1 });
    const busy = await sharp(
      Buffer.from(
        '<svg xmlns="http://www.w3.org/2000/svg" width="300" height="300"><defs><linearGradient id="g"><stop offset="0" stop-color="#000"/><stop offset="1" stop-color="#fff"/></linearGradient></defs><rect width="300" height="300" fill="url(#g)"/></svg>',
      ),
    )
      .png()
      .toBuffer();
    const r = await postJson('/image/background-remove', key, { image: busy.toString('base64') });
    assert.equal(r.status, 400);
    assert.match(r.json.error, /only handles flat backgrounds/);
    assert.equal((await usageRows(accountId)).length, 0);
    assert.deepEqual(await balance(accountId), [1_000_000, 0]);
    for (const body of [{}, { image: busy.toString('base64'), image_url: `${filesUrl}/product.jpg` }, { image_url: 'file:///etc/passwd' }]) {
      const bad = await postJson('/image/background-remove', key, body);
      assert.equal(bad.status, 400, JSON.stringify(body).slice(0, 60));
    }
  });
});

describe('credentials, credit and rate limits', () => {
  test('401 for a bad key, the x402 discovery 402 without one, 402 without credit', async () => {
    const body = { model: 'demo-image', prompt: 'x' };
    assert.equal((await postJson('/image/generate', 'lgn_inf_unknown', body)).status, 401);
    const anon = await postJson('/image/upscale', undefined, { image: 'x' });
    assert.deepEqual([anon.status, anon.json.code], [402, 'AUTHENTICATION_REQUIRED']);
    assert.match(anon.json.resource.url, /\/api\/v1\/image\/upscale$/);
    const { key, accountId } = await h.newAccount({ usd: 0 });
    const broke = await postJson('/image/generate', key, body);
    assert.deepEqual([broke.status, broke.json.code], [402, 'INSUFFICIENT_BALANCE']);
    // 0.01 + 8 × 0.001 is 0.018: a balance of 0.015 covers one step-less image but not this one.
    await grantUsd(h.svc.store, accountId, 15_000);
    assert.equal((await postJson('/image/generate', key, body)).status, 402);
    assert.equal((await postJson('/image/generate', key, { ...body, steps: 5, width: 256, height: 256 })).status, 200);
    assert.deepEqual(await balance(accountId), [0, 0]);
    // The worst case of four variants is held: a balance for two is refused up front.
    await grantUsd(h.svc.store, accountId, 40_000);
    const four = await postJson('/image/generate', key, { ...body, variants: 4, width: 256, height: 256 });
    assert.equal(four.status, 402);
    assert.deepEqual(await balance(accountId), [40_000, 0]);
  });

  test(`the Image rate limit: ${RPM} requests a window per key, then 429`, async () => {
    const { key } = await h.newAccount({ usd: 10 });
    const body = { model: 'demo-image', prompt: 'x', width: 64, height: 64, steps: 1 };
    for (let i = 0; i < RPM; i++) assert.equal((await postJson('/image/generate', key, body)).status, 200);
    const over = await postJson('/image/generate', key, body);
    assert.deepEqual([over.status, over.json.code], [429, 'RATE_LIMIT_EXCEEDED']);
    assert.equal(over.headers.get('x-ratelimit-remaining-requests'), '0');
  });

  test('a wallet signed in with SIGN-IN-WITH-X pays from its credit, with X-Balance-Remaining; without credit, the wallet 402', async () => {
    const account = evmWallet();
    const w = await ensureWallet(h.svc.store, 'eip155', account.address);
    const call = async () =>
      send('/image/generate', undefined, JSON.stringify({ model: 'demo-image', prompt: 'x', width: 64, height: 64, steps: 2 }), {
        'content-type': 'application/json',
        'SIGN-IN-WITH-X': await signInHeader(h, account),
      });
    const poor = await call();
    assert.deepEqual([poor.status, poor.json.code], [402, 'PAYMENT_REQUIRED']);
    await grantUsd(h.svc.store, w.accountId, 1_000_000);
    const paid = await call();
    assert.equal(paid.status, 200, paid.bytes.toString());
    assert.equal(paid.headers.get('x-balance-remaining'), (1 - 0.012).toFixed(6));
    assert.deepEqual(
      (await usageRows(w.accountId)).map((u) => [u.endpoint, Number(u.usd)]),
      [['/image/generate', 12_000]],
    );
  });
});

describe('GET /models for image models', () => {
  test('each image type lists its models with per-image prices, limits and what they do', async () => {
    const image = await get(h, '/models?type=image');
    assert.deepEqual(
      image.json.data.map((m: any) => m.id),
      ['demo-image', 'strict-image'],
    );
    const demo = image.json.data[0].model_spec;
    assert.equal(demo.demo, true);
    assert.equal(demo.modelSource, 'lagoon-demo');
    assert.deepEqual(demo.pricing.generation, { usd: 0.01, diem: 0.01 });
    assert.deepEqual(demo.pricing.perStep, { usd: 0.001, diem: 0.001 });
    assert.deepEqual(demo.pricing.bySize, { '2048x2048': { usd: 0.05, diem: 0.05 } });
    assert.equal(demo.pricing.input, undefined, 'no token prices');
    assert.deepEqual(demo.constraints.steps, { default: 8, max: 30 });
    assert.equal(demo.constraints.promptCharacterLimit, 1500);
    assert.deepEqual(demo.constraints.aspectRatios, ['1:1', '16:9', '9:16']);
    assert.deepEqual(demo.capabilities.tasks, ['generate']);
    assert.equal(demo.capabilities.contentCheck, 'none');
    assert.deepEqual(image.json.data[1].model_spec.constraints.sizes, ['512x512', '1024x1024']);
    const up = await get(h, '/models?type=upscale');
    assert.deepEqual(
      up.json.data.map((m: any) => [m.id, m.model_spec.modelSource, m.model_spec.pricing.upscale['2x'].usd]),
      [
        ['esrgan', 'esrgan-onnxruntime', 0.02],
        ['lanczos', 'sharp', 0.005],
      ],
    );
    assert.deepEqual(up.json.data[0].model_spec.constraints.input, { minPixels: 65536, maxPixels: 262144, maxBytes: 25 * 1024 * 1024 });
    const inpaint = await get(h, '/models?type=inpaint');
    assert.deepEqual(inpaint.json.data[0].model_spec.pricing.inpaint, { usd: 0.03, diem: 0.03 });
    assert.equal(inpaint.json.data[0].model_spec.constraints.maxInputImages, 3);
    const bg = await get(h, '/models?type=background-remove');
    assert.deepEqual(bg.json.data[0].model_spec.capabilities.outputFormats, ['png']);
    assert.equal((await get(h, '/models?type=nonsense')).status, 400);
  });
});

describe('on PostgreSQL', () => {
  test('images are billed once and a failed job leaves no hold, with holds in the database', async () => {
    const db = await createTestDatabase();
    const pg = await startHarness({
      databaseUrl: db.url,
      models: [
        {
          id: 'demo-image',
          name: 'Demo image',
          type: 'image',
          tier: 'XS',
          pricing: { ...free, per_image_usd: 0.01 },
          context_length: 1,
          engine: { kind: 'demo-image' },
        },
        {
          id: 'demo-bg',
          name: 'Demo bg',
          type: 'background-remove',
          tier: 'XS',
          pricing: { ...free, per_image_usd: 0.04 },
          context_length: 1,
          engine: { kind: 'demo-background-remove' },
        },
      ],
    });
    try {
      const { key, accountId } = await pg.newAccount({ usd: 1 });
      const post = (p: string, body: unknown) =>
        fetch(`${pg.base}${p}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
          body: JSON.stringify(body),
        });
      const r = await post('/image/generate', { model: 'demo-image', prompt: 'x', width: 128, height: 128, variants: 2 });
      assert.equal(r.status, 200);
      const noisy = await sharp({ create: { width: 300, height: 300, channels: 3, background: '#808080', noise: { type: 'gaussian', mean: 128, sigma: 60 } } })
        .png()
        .toBuffer();
      const failed = await post('/image/background-remove', { image: noisy.toString('base64') });
      assert.equal(failed.status, 400);
      await pg.svc.ledger.drain();
      const rows = await pg.svc.store.all<any>('SELECT endpoint, unit, quantity, usd FROM usage WHERE account_id = $1', [accountId]);
      assert.deepEqual(
        rows.map((u) => [u.endpoint, u.unit, Number(u.quantity), Number(u.usd)]),
        [['/image/generate', 'image', 2, 20_000]],
      );
      const b = await pg.svc.ledger.balances(accountId);
      assert.deepEqual([b.usd, b.usdHeld], [1_000_000 - 20_000, 0]);
      assert.equal((await pg.svc.store.all<any>('SELECT * FROM holds WHERE account_id = $1', [accountId])).length, 0);
    } finally {
      await pg.close();
      await db.drop();
    }
  });
});
