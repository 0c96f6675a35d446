// The image endpoints, framework-free, each one metered call in the unit `image`: validate → choose the model → check
// the request against its limits and load the inputs → admit and hold the worst case (every variant, at its size and
// steps) → run the engine → finish the images (safe mode, watermark, format) → settle the images produced. A failure
// before the images exist (the engine's, or an engine answer that is not an image) releases the hold, so it costs
// nothing. The API routes (lib/images/api-routes.ts) and the browser app call these.
import { randomInt } from 'node:crypto';
import { ApiError } from '../api/errors.ts';
import type { ImageSafety } from '../api/headers.ts';
import { parseOrThrow } from '../api/validation.ts';
import type { Amount } from '../billing/money.ts';
import type { Quantities } from '../billing/pricing.ts';
import { contentCheckOf, type ImageLimits, imageLimits } from '../models/image-models.ts';
import type { ModelEntry } from '../models/schema.ts';
import type { CallContext, CallDeps, CallMeta } from '../engines/call.ts';
import { metered } from '../billing/metered.ts';
import { EngineError } from '../engines/text/types.ts';
import { ContentPolicyError, type EngineImage, type GenerateSpec, type ImageEngine } from '../engines/images/engine.ts';
import { hash32 } from '../engines/images/demo-art.ts';
import { type InputBounds, type InputImage, inputBytes, inspect, loadInput } from '../engines/images/inputs.ts';
import { finishImage, type FinishedImage } from './output.ts';
import { checkPrompt, defaultModelOf, editSize, generateSize, imageModel, checkSize, upscaleSize } from './plan.ts';
import type { ImageEngines } from '../engines/images/registry.ts';
import {
  backgroundRemoveRequest,
  editRequest,
  generateRequest,
  type ImageFormat,
  multiEditRequest,
  type MultiEditRequest,
  openaiGenerationsRequest,
  upscaleRequest,
} from './requests.ts';
import { causeOf, log } from '../log.ts';
import { recordUpstreamError } from '../metrics/registry.ts';

export type ImageDeps = Pick<CallDeps, 'store' | 'ledger' | 'limiter' | 'catalogue' | 'wire' | 'fetchAllowHosts'> & { engines: ImageEngines };

export interface ImageResult {
  meta: CallMeta;
  charged: Amount;
  safety: ImageSafety;
  /** JSON to send, or one image as the body. */
  out: { kind: 'json'; body: Record<string, unknown> } | { kind: 'binary'; image: FinishedImage };
  /** The seeds of the images (generation), so a client can vary or repeat one. */
  seeds?: number[];
}

const objectBody = (raw: unknown): Record<string, unknown> => {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new ApiError('INVALID_REQUEST', 'The request body must be a JSON object');
  return raw as Record<string, unknown>;
};

const unsupported = (param: string, message: string) => new ApiError('INVALID_REQUEST', message, { param });

async function startImageEngine(deps: ImageDeps, model: ModelEntry): Promise<ImageEngine> {
  try {
    return await deps.engines.get(model);
  } catch (e) {
    // The registry's own refusal (an engine known to be down, lib/engines/health.ts) names the problem.
    if (e instanceof ApiError) throw e;
    log.error({ err: e }, `image engine for ${model.id} failed to start`);
    throw new ApiError('INFERENCE_FAILED', `The engine for model ${model.id} could not start`);
  }
}

/** An engine failure as the wire error; a content-policy refusal says so in its header too. */
function imageFailure(deps: ImageDeps, model: ModelEntry, e: unknown): ApiError {
  if (e instanceof ApiError) return e;
  if (e instanceof ContentPolicyError) {
    const p = deps.wire.headerPrefix;
    return new ApiError('CONTENT_POLICY_VIOLATION', `The provider refused the request under its content policy: ${e.message}`, undefined, {
      [`${p}is-content-violation`]: 'true',
      [`${p}content-check`]: 'upstream',
    });
  }
  if (!(e instanceof EngineError)) {
    recordUpstreamError('unexpected');
    log.error({ model: model.id, err: e }, 'image engine failed');
    return new ApiError('INFERENCE_FAILED');
  }
  if (e.message !== 'aborted') recordUpstreamError(e.kind);
  switch (e.kind) {
    case 'capacity':
      return new ApiError('MODEL_AT_CAPACITY', undefined, undefined, { 'retry-after': '5' });
    case 'timeout':
      return new ApiError('REQUEST_TIMEOUT', `The image engine of model ${model.id} did not finish in time`);
    case 'bad_request':
      return new ApiError('INVALID_REQUEST', `The model rejected the request: ${e.message}`);
    default:
      if (e.message !== 'aborted') log.warn({ model: model.id, kind: e.kind, cause: causeOf(e) }, 'image engine failed');
      return new ApiError('INFERENCE_FAILED');
  }
}

/** The images' safety: blurred if any was; a verdict only when every image was checked. */
function safetyOf(model: ModelEntry, images: EngineImage[], safeMode: boolean): ImageSafety {
  const upstream = contentCheckOf(model.engine.kind) === 'upstream';
  const checked = upstream && images.every((i) => i.flagged !== undefined);
  const flagged = upstream && images.some((i) => i.flagged === true);
  return { blurred: safeMode && flagged, check: checked ? 'upstream' : 'none', ...(checked ? { violation: false } : {}) };
}

/** A seed as the engines take it: a request's 0 or none is a random one; negatives wrap to the unsigned range. */
function seedOf(seed: number | undefined): number {
  if (seed === undefined || seed === 0) return randomInt(1, 999_999_999);
  return seed < 0 ? seed + 2 ** 32 : seed;
}

interface Metered<T> {
  model: ModelEntry;
  engine: ImageEngine;
  endpoint: string;
  estimate: Quantities;
  run: () => Promise<{
    images: EngineImage[];
    value: (finished: FinishedImage[], engineMs: number) => T;
    finish: (img: EngineImage) => Promise<FinishedImage>;
  }>;
  /** The quantities of `count` images produced. */
  used: (count: number) => Quantities;
  safeMode: boolean;
}

/** Hold the worst case, run, finish every image, settle the images produced; any failure before that releases. */
async function meteredImages<T>(deps: ImageDeps, ctx: CallContext, m: Metered<T>): Promise<{ value: T; meta: CallMeta; charged: Amount; safety: ImageSafety }> {
  return metered(deps, ctx, { model: m.model, endpoint: m.endpoint, unit: 'image', estimate: m.estimate }, async (meter) => {
    const started = performance.now();
    let produced;
    let finished: FinishedImage[];
    try {
      produced = await m.run();
      if (!produced.images.length) throw new EngineError('failed', 'the engine produced no image');
      finished = [];
      for (const img of produced.images) finished.push(await produced.finish(img));
    } catch (e) {
      throw imageFailure(deps, m.model, e);
    }
    const charged = meter.settle(m.used(finished.length));
    return {
      value: produced.value(finished, performance.now() - started),
      meta: { model: m.model, router: m.engine.router, balancesBefore: meter.before, hold: meter.hold },
      charged,
      safety: safetyOf(m.model, produced.images, m.safeMode),
    };
  });
}

function requireJob<K extends keyof ImageEngine>(engine: ImageEngine, model: ModelEntry, job: K, what: string): NonNullable<ImageEngine[K]> {
  const fn = engine[job];
  if (!fn) throw new ApiError('INVALID_MODEL', `Model ${model.id} cannot ${what}`, { param: 'model' });
  return fn as NonNullable<ImageEngine[K]>;
}

interface GenerationPlan extends GenerateSpec {
  model: ModelEntry;
  format: ImageFormat;
  watermark: boolean;
  exif: boolean;
}

async function generate<T>(
  deps: ImageDeps,
  ctx: CallContext,
  endpoint: string,
  plan: GenerationPlan,
  shape: (images: FinishedImage[], timing: Record<string, number>) => T,
): Promise<{ value: T; meta: CallMeta; charged: Amount; safety: ImageSafety; seeds: number[] }> {
  const begun = performance.now();
  const engine = await startImageEngine(deps, plan.model);
  const run = requireJob(engine, plan.model, 'generate', 'generate images').bind(engine);
  const imageSize = `${plan.width}x${plan.height}`;
  const quantities = (images: number): Quantities => ({ images, imageSize, imageSteps: plan.steps });
  const seeds = Array.from({ length: plan.variants }, (_, i) => plan.seed + i);
  const r = await meteredImages(deps, ctx, {
    model: plan.model,
    engine,
    endpoint,
    estimate: quantities(plan.variants),
    used: quantities,
    safeMode: plan.safeMode,
    run: async () => {
      const prepared = performance.now();
      const images = (
        await run({
          requestId: ctx.requestId,
          signal: ctx.signal,
          prompt: plan.prompt,
          negativePrompt: plan.negativePrompt,
          width: plan.width,
          height: plan.height,
          steps: plan.steps,
          cfgScale: plan.cfgScale,
          seed: plan.seed,
          variants: plan.variants,
          stylePreset: plan.stylePreset,
          safeMode: plan.safeMode,
        })
      ).slice(0, plan.variants);
      const check = contentCheckOf(plan.model.engine.kind);
      return {
        images,
        finish: (img) =>
          finishImage(img, {
            format: plan.format,
            blur: plan.safeMode && check === 'upstream' && img.flagged === true,
            watermark: plan.watermark,
            // An upstream that answers at another size is brought to the size asked for (and billed).
            size: { width: plan.width, height: plan.height },
            exif: plan.exif ? { description: plan.prompt, software: `Lagoon, model ${plan.model.id}, seed ${plan.seed}` } : undefined,
          }),
        value: (finished, engineMs) =>
          shape(finished, {
            inferenceDuration: Math.round(engineMs),
            inferencePreprocessingTime: Math.round(prepared - begun),
            inferenceQueueTime: 0,
            total: Math.round(performance.now() - begun),
          }),
      };
    },
  });
  return { ...r, seeds };
}

/** The checks every generation request shares, against the model's limits. */
function checkGeneration(model: ModelEntry, limits: ImageLimits, prompt: string, negativePrompt: string | undefined, steps: number, variants: number): void {
  checkPrompt(model, limits, prompt);
  if (negativePrompt !== undefined) {
    if (!limits.negativePrompt) throw unsupported('negative_prompt', `Model ${model.id} does not take negative_prompt`);
    checkPrompt(model, limits, negativePrompt, 'negative_prompt');
  }
  if (steps > limits.steps.max) throw unsupported('steps', `steps must be at most ${limits.steps.max} for model ${model.id} (got ${steps})`);
  if (variants > limits.maxVariants) throw unsupported('variants', `variants must be at most ${limits.maxVariants} for model ${model.id} (got ${variants})`);
}

/** POST /image/generate. */
export async function runGenerate(deps: ImageDeps, ctx: CallContext, raw: unknown): Promise<ImageResult> {
  const req = parseOrThrow(generateRequest, objectBody(raw), deps.wire);
  const model = imageModel(deps.catalogue, req.model, 'image');
  const limits = imageLimits(model);
  const steps = req.steps ?? limits.steps.default;
  checkGeneration(model, limits, req.prompt, req.negative_prompt, steps, req.variants);
  // Fields of the public API that no engine here can honour are refused, not silently dropped.
  if (req.quality !== undefined) throw unsupported('quality', `Model ${model.id} has no quality levels; leave out quality`);
  if (req.lora_strength !== undefined) throw unsupported('lora_strength', `Model ${model.id} does not use LoRAs; leave out lora_strength`);
  if (req.enhance_prompt) throw unsupported('enhance_prompt', 'Prompt enhancement is not available on this server');
  if (req.enable_web_search) throw unsupported('enable_web_search', 'Web search for image generation is not available on this server');
  if (req.style_references?.length) throw unsupported('style_references', `Model ${model.id} takes no style references`);
  if (req.inpaint !== undefined && req.inpaint !== null) throw unsupported('inpaint', 'inpaint was disabled on 2025-05-19: use POST /image/edit');
  const styles = deps.catalogue.file.image_styles;
  if (req.style_preset !== undefined && !styles.includes(req.style_preset)) {
    throw unsupported('style_preset', `style_preset must be one of GET /image/styles: ${styles.join(', ') || 'none are offered'} (got "${req.style_preset}")`);
  }
  const { width, height } = generateSize(model, limits, req);
  const seed = seedOf(req.seed);
  const r = await generate(
    deps,
    ctx,
    '/image/generate',
    {
      model,
      prompt: req.prompt,
      negativePrompt: req.negative_prompt,
      width,
      height,
      steps,
      cfgScale: req.cfg_scale,
      seed,
      variants: req.variants,
      stylePreset: req.style_preset,
      safeMode: req.safe_mode,
      format: req.format,
      watermark: !req.hide_watermark,
      exif: req.embed_exif_metadata,
    },
    (images, timing) => ({ images, timing }),
  );
  const { images, timing } = r.value;
  const out: ImageResult['out'] = req.return_binary
    ? { kind: 'binary', image: images[0] }
    : {
        kind: 'json',
        body: {
          id: `generate-image-${ctx.requestId}`,
          images: images.map((i) => i.bytes.toString('base64')),
          request: { ...req, width, height, steps, seed },
          timing,
        },
      };
  return { meta: r.meta, charged: r.charged, safety: r.safety, out, seeds: r.seeds.slice(0, images.length) };
}

/** The image model an OpenAI-style name means: ours if it names one, else the default (OpenAI names fall back). */
function openaiModel(deps: ImageDeps, name: string | undefined): ModelEntry {
  if (name !== undefined) {
    try {
      const m = imageModel(deps.catalogue, name, 'image');
      return m;
    } catch (e) {
      if (!(e instanceof ApiError) || (e.code !== 'MODEL_NOT_FOUND' && e.code !== 'INVALID_MODEL')) throw e;
    }
  }
  return defaultModelOf(deps.catalogue, 'image');
}

/** POST /images/generations (OpenAI's shape): one image, b64_json or a data: URL. */
export async function runOpenAIGenerations(deps: ImageDeps, ctx: CallContext, raw: unknown): Promise<ImageResult> {
  const req = parseOrThrow(openaiGenerationsRequest, objectBody(raw), deps.wire);
  const model = openaiModel(deps, req.model);
  const limits = imageLimits(model);
  checkGeneration(model, limits, req.prompt, undefined, limits.steps.default, 1);
  const size = !req.size || req.size === 'auto' ? { width: limits.defaultWidth, height: limits.defaultHeight } : parseSize(req.size);
  checkSize(model, limits, size, 'size');
  const format = req.output_format ?? 'png';
  const seed = seedOf(undefined);
  const r = await generate(
    deps,
    ctx,
    '/images/generations',
    {
      model,
      prompt: req.prompt,
      ...size,
      steps: limits.steps.default,
      seed,
      variants: 1,
      safeMode: req.moderation !== 'low',
      format,
      // OpenAI's API has no watermark and no field to hide one: its clients get the image as generated.
      watermark: false,
      exif: false,
    },
    (images) => images,
  );
  const data = r.value.map((img) =>
    req.response_format === 'url' ? { url: `data:${img.contentType};base64,${img.bytes.toString('base64')}` } : { b64_json: img.bytes.toString('base64') },
  );
  return {
    meta: r.meta,
    charged: r.charged,
    safety: r.safety,
    out: { kind: 'json', body: { created: Math.floor(Date.now() / 1000), data } },
    seeds: r.seeds.slice(0, data.length),
  };
}

const parseSize = (s: string) => {
  const [width, height] = s.split('x').map(Number);
  return { width, height };
};

const boundsOf = (l: ImageLimits): InputBounds => ({ minPixels: l.inputMinPixels, maxPixels: l.inputMaxPixels, maxBytes: l.inputMaxBytes });

/** A single-image job (edit, upscale, background removal): metered as one image, answered as its bytes. */
async function singleImage(
  deps: ImageDeps,
  ctx: CallContext,
  o: {
    model: ModelEntry;
    engine: ImageEngine;
    endpoint: string;
    imageSize: string;
    safeMode: boolean;
    run: () => Promise<EngineImage>;
    finish: (img: EngineImage) => Promise<FinishedImage>;
  },
): Promise<ImageResult> {
  const used = (images: number): Quantities => ({ images, imageSize: o.imageSize });
  const r = await meteredImages(deps, ctx, {
    model: o.model,
    engine: o.engine,
    endpoint: o.endpoint,
    estimate: used(1),
    used,
    safeMode: o.safeMode,
    run: async () => ({ images: [await o.run()], finish: o.finish, value: (finished) => finished[0] }),
  });
  return { meta: r.meta, charged: r.charged, safety: r.safety, out: { kind: 'binary', image: r.value } };
}

/** The model of an edit: `model`, or its deprecated alias `modelId` (the two must agree), or the default. */
function editModel(deps: ImageDeps, req: { model?: string; modelId?: string }): ModelEntry {
  if (req.model !== undefined && req.modelId !== undefined && req.model !== req.modelId) {
    throw unsupported('modelId', 'model and modelId (its deprecated alias) name different models: give one');
  }
  return imageModel(deps.catalogue, req.model ?? req.modelId, 'inpaint', req.model !== undefined ? 'model' : 'modelId');
}

async function runEditJob(deps: ImageDeps, ctx: CallContext, req: MultiEditRequest, endpoint: string, fields: string[]): Promise<ImageResult> {
  const model = editModel(deps, req);
  const limits = imageLimits(model);
  checkPrompt(model, limits, req.prompt);
  if (req.quality !== undefined) throw unsupported('quality', `Model ${model.id} has no quality levels; leave out quality`);
  if (req.enhance_prompt) throw unsupported('enhance_prompt', 'Prompt enhancement is not available on this server');
  if (req.images.length > limits.maxInputImages) {
    throw unsupported('images', `Model ${model.id} takes at most ${limits.maxInputImages} image(s) (got ${req.images.length})`);
  }
  const engine = await startImageEngine(deps, model);
  const edit = requireJob(engine, model, 'edit', 'edit images').bind(engine);
  const policy = { allowHosts: deps.fetchAllowHosts, signal: ctx.signal };
  const inputs: InputImage[] = await Promise.all(req.images.map((img, i) => loadInput(img, fields[i], boundsOf(limits), policy)));
  const size = editSize(model, limits, inputs[0], req);
  const format: ImageFormat = req.output_format === 'jpg' ? 'jpeg' : (req.output_format ?? (size.resolution === '1K' ? 'png' : 'jpeg'));
  const check = contentCheckOf(model.engine.kind);
  return singleImage(deps, ctx, {
    model,
    engine,
    endpoint,
    imageSize: `${size.width}x${size.height}`,
    safeMode: req.safe_mode,
    run: () =>
      edit({
        requestId: ctx.requestId,
        signal: ctx.signal,
        prompt: req.prompt,
        images: inputs.map((i) => i.bytes),
        width: size.width,
        height: size.height,
        seed: hash32(req.prompt),
        safeMode: req.safe_mode,
      }),
    // An upstream may answer at its own size: the edit's size is the one asked for (aspect_ratio, resolution).
    finish: (img) =>
      finishImage(img, {
        format,
        blur: req.safe_mode && check === 'upstream' && img.flagged === true,
        watermark: false,
        size: { width: size.width, height: size.height },
      }),
  });
}

/** POST /image/edit. */
export async function runEdit(deps: ImageDeps, ctx: CallContext, raw: unknown): Promise<ImageResult> {
  const { image, ...rest } = parseOrThrow(editRequest, objectBody(raw), deps.wire);
  return runEditJob(deps, ctx, { ...rest, images: [image] }, '/image/edit', ['image']);
}

/** POST /image/multi-edit. */
export async function runMultiEdit(deps: ImageDeps, ctx: CallContext, raw: unknown): Promise<ImageResult> {
  const req = parseOrThrow(multiEditRequest, objectBody(raw), deps.wire);
  return runEditJob(
    deps,
    ctx,
    req,
    '/image/multi-edit',
    req.images.map((_, i) => `images[${i}]`),
  );
}

/**
 * POST /image/upscale. Without `model`, the default upscaler takes the image if it is within its input limit, else
 * the next upscale model whose limit fits (the neural one for small images, resampling for large ones).
 */
export async function runUpscale(deps: ImageDeps, ctx: CallContext, raw: unknown): Promise<ImageResult> {
  const req = parseOrThrow(upscaleRequest, objectBody(raw), deps.wire);
  const policy = { allowHosts: deps.fetchAllowHosts, signal: ctx.signal };
  let model: ModelEntry;
  let input: InputImage;
  if (req.model !== undefined) {
    model = imageModel(deps.catalogue, req.model, 'upscale');
    input = await loadInput(req.image, 'image', boundsOf(imageLimits(model)), policy);
  } else {
    const first = defaultModelOf(deps.catalogue, 'upscale');
    const candidates = [first, ...deps.catalogue.models.filter((m) => m.type === 'upscale' && m !== first)];
    const all = candidates.map((m) => boundsOf(imageLimits(m)));
    const widest = {
      minPixels: Math.min(...all.map((b) => b.minPixels)),
      maxPixels: Math.max(...all.map((b) => b.maxPixels)),
      maxBytes: Math.max(...all.map((b) => b.maxBytes)),
    };
    const bytes = await inputBytes(req.image, 'image', widest, policy);
    const fits: boolean[] = await Promise.all(
      all.map((b) =>
        inspect(bytes, 'image', b).then(
          () => true,
          () => false,
        ),
      ),
    );
    const i = fits.indexOf(true);
    // None fits: the default model's own refusal says why.
    model = i >= 0 ? candidates[i] : first;
    input = await inspect(bytes, 'image', all[Math.max(0, i)]);
  }
  const limits = imageLimits(model);
  const { outWidth, outHeight } = upscaleSize(model, limits, input, req.scale);
  const engine = await startImageEngine(deps, model);
  const upscale = requireJob(engine, model, 'upscale', 'upscale images').bind(engine);
  return singleImage(deps, ctx, {
    model,
    engine,
    endpoint: '/image/upscale',
    imageSize: `${outWidth}x${outHeight}`,
    safeMode: false,
    run: () => upscale({ requestId: ctx.requestId, signal: ctx.signal, image: input.bytes, width: input.width, height: input.height, outWidth, outHeight }),
    finish: (img) => finishImage(img, { format: 'png', blur: false, watermark: false, size: { width: outWidth, height: outHeight } }),
  });
}

/** POST /image/background-remove: a PNG with a transparent background. */
export async function runBackgroundRemove(deps: ImageDeps, ctx: CallContext, raw: unknown): Promise<ImageResult> {
  const req = parseOrThrow(backgroundRemoveRequest, objectBody(raw), deps.wire);
  const model = imageModel(deps.catalogue, req.model, 'background-remove');
  const limits = imageLimits(model);
  const field = req.image !== undefined ? 'image' : 'image_url';
  const input = await loadInput((req.image ?? req.image_url) as string | Buffer, field, boundsOf(limits), {
    allowHosts: deps.fetchAllowHosts,
    signal: ctx.signal,
  });
  const engine = await startImageEngine(deps, model);
  const remove = requireJob(engine, model, 'removeBackground', 'remove backgrounds').bind(engine);
  return singleImage(deps, ctx, {
    model,
    engine,
    endpoint: '/image/background-remove',
    imageSize: `${input.width}x${input.height}`,
    safeMode: false,
    run: () => remove({ requestId: ctx.requestId, signal: ctx.signal, image: input.bytes, width: input.width, height: input.height }),
    finish: (img) => finishImage(img, { format: 'png', blur: false, watermark: false }),
  });
}
