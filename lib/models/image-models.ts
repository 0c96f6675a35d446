// What an image-family catalogue model declares beyond the common fields: its engine (one of the kinds below) and its
// limits. Owned by the images capability (lib/images); schema.ts joins these into the catalogue format.
// Four model types make the family, one per job: `image` (generate), `inpaint` (edit and multi-edit), `upscale` and
// `background-remove`. An engine kind serves the jobs listed in ENGINE_JOBS.
import { z } from 'zod';

export const IMAGE_MODEL_TYPES = ['image', 'inpaint', 'upscale', 'background-remove'] as const;
export type ImageModelType = (typeof IMAGE_MODEL_TYPES)[number];
export const isImageModelType = (t: string): t is ImageModelType => (IMAGE_MODEL_TYPES as readonly string[]).includes(t);

export type ImageJob = 'generate' | 'edit' | 'upscale' | 'background-remove';
/** The job each model type does. */
export const JOB_OF_TYPE: Record<ImageModelType, ImageJob> = {
  image: 'generate',
  inpaint: 'edit',
  upscale: 'upscale',
  'background-remove': 'background-remove',
};

/** The longest side and the pixel count, for sizes named by resolution tier. */
export const RESOLUTIONS = { '1K': 1024, '2K': 2048, '4K': 4096 } as const;
export type Resolution = keyof typeof RESOLUTIONS;
const ratio = z.string().regex(/^[1-9]\d{0,2}:[1-9]\d{0,2}$/, 'aspect ratios are W:H, e.g. 16:9');

// Admission to an engine: at most maxConcurrency jobs run, maxQueue wait (each at most queueTimeoutMs), beyond that
// 503 with Retry-After.
const admission = {
  maxConcurrency: z.number().int().positive().optional(),
  maxQueue: z.number().int().nonnegative().optional(),
  queueTimeoutMs: z.number().int().positive().optional(),
};

/** An upstream server people run; its URL and key come from the operator's catalogue, never from a request. */
const upstream = {
  /** The server's base URL (for the OpenAI images API, with its /v1). */
  baseUrl: z.string().url(),
  /** Name of the environment variable holding the upstream's credential (never the credential itself). */
  apiKeyEnv: z.string().optional(),
  /** The whole upstream job, from dispatch to the last byte (default 120 s). */
  timeoutMs: z.number().int().positive().optional(),
  ...admission,
};

/** The project's own demo generator: deterministic in prompt and seed, no weights; named as a demo in /models. */
const demoImageEngine = z.strictObject({ kind: z.literal('demo-image'), ...admission });
/** A demo editor: a small vocabulary of edits (greyscale, sepia, blur, flip, tint…) applied for real, else a prompt-seeded colour grade. */
const demoEditEngine = z.strictObject({ kind: z.literal('demo-edit'), ...admission });
/** A demo background remover for flat backgrounds: flood fill from the border to transparency. */
const demoBackgroundEngine = z.strictObject({ kind: z.literal('demo-background-remove'), ...admission });
/** ESRGAN (RDN, @upscalerjs/esrgan-slim's weights) on onnxruntime's CPU kernels, in a worker thread. */
const esrganEngine = z.strictObject({
  kind: z.literal('esrgan'),
  /** Tile edge in input pixels: each tile runs on its own (bounded memory), with a margin blended away. */
  tileSize: z.number().int().min(32).max(512).optional(),
  /** onnxruntime's threads for a job; unset, one per physical core. */
  threads: z.number().int().min(1).max(256).optional(),
  ...admission,
});
/** Resampling with sharp (libvips), for images too large for the neural upscaler. */
const sharpUpscaleEngine = z.strictObject({
  kind: z.literal('sharp-upscale'),
  kernel: z.enum(['lanczos3', 'lanczos2', 'mitchell', 'cubic']).optional(),
  ...admission,
});
/** The OpenAI images API (/images/generations, /images/edits): OpenAI, LocalAI, hosted providers. */
const openaiImagesEngine = z.strictObject({
  kind: z.literal('openai-images'),
  /** The upstream's model name; defaults to the catalogue id. */
  model: z.string().optional(),
  ...upstream,
});
/** AUTOMATIC1111 / Forge web UI API (/sdapi/v1/txt2img, img2img, extra-single-image). */
const a1111Engine = z.strictObject({
  kind: z.literal('a1111'),
  /** Checkpoint for this model's jobs (override_settings.sd_model_checkpoint); default: whatever the server has loaded. */
  checkpoint: z.string().optional(),
  sampler: z.string().optional(),
  /** Upscaler name for extra-single-image (default "R-ESRGAN 4x+"). */
  upscaler: z.string().optional(),
  /** img2img denoising strength for edits (default 0.6). */
  denoisingStrength: z.number().min(0).max(1).optional(),
  ...upstream,
});
/**
 * ComfyUI: an API-format workflow file per model with placeholders ("{{prompt}}", "{{negative_prompt}}", "{{seed}}",
 * "{{width}}", "{{height}}", "{{steps}}", "{{cfg_scale}}", "{{image}}"), submitted to /prompt and followed through
 * /history to /view. The path is relative to the catalogue file and may name ${VAR}s, like the llama path.
 */
const comfyuiEngine = z.strictObject({
  kind: z.literal('comfyui'),
  workflow: z.string().min(1),
  /** How often /history is polled (default 500 ms). */
  pollMs: z.number().int().positive().optional(),
  ...upstream,
});
/** A rembg server (`rembg s`): POST /api/remove with the image, a PNG with its background removed comes back. */
const rembgEngine = z.strictObject({
  kind: z.literal('rembg'),
  /** rembg's model name (u2net, isnet-general-use, …); default: the server's. */
  model: z.string().optional(),
  ...upstream,
});

export const imageEngines = [
  demoImageEngine,
  demoEditEngine,
  demoBackgroundEngine,
  esrganEngine,
  sharpUpscaleEngine,
  openaiImagesEngine,
  a1111Engine,
  comfyuiEngine,
  rembgEngine,
] as const;

export type ImageEngineSpec = z.infer<(typeof imageEngines)[number]>;
export type ImageEngineKind = ImageEngineSpec['kind'];

/** The jobs each engine kind can do. */
export const ENGINE_JOBS: Record<ImageEngineKind, readonly ImageJob[]> = {
  'demo-image': ['generate'],
  'demo-edit': ['edit'],
  'demo-background-remove': ['background-remove'],
  esrgan: ['upscale'],
  'sharp-upscale': ['upscale'],
  'openai-images': ['generate', 'edit'],
  a1111: ['generate', 'edit', 'upscale'],
  comfyui: ['generate', 'edit'],
  rembg: ['background-remove'],
};

export const isImageEngineKind = (k: string): k is ImageEngineKind => Object.hasOwn(ENGINE_JOBS, k);

/** Engines whose protocol carries the upstream's own content flag (Azure OpenAI's content_filter_results). */
const FLAGGING_ENGINES = new Set<string>(['openai-images']);

/** Limits and capabilities of an image-family model, listed by /models. Every field is optional: see imageLimits. */
export const imageSpec = z
  .strictObject({
    /** The longest prompt in characters. */
    prompt_character_limit: z.number().int().positive().max(32_768).optional(),
    /** Generate: the longest side in pixels, for sizes from aspect_ratio/resolution and the OpenAI sizes. */
    max_side: z.number().int().positive().max(8192).optional(),
    /** Generate: width and height must be multiples of this. */
    width_height_divisor: z.number().int().positive().max(256).optional(),
    default_size: z
      .string()
      .regex(/^\d+x\d+$/, 'sizes are WIDTHxHEIGHT')
      .optional(),
    /** Generate and edit: the aspect ratios `aspect_ratio` may name (none: the field is refused). */
    aspect_ratios: z.array(ratio).optional(),
    /** Generate and edit: the tiers `resolution` may name. */
    resolutions: z.array(z.enum(['1K', '2K', '4K'])).optional(),
    default_resolution: z.enum(['1K', '2K', '4K']).optional(),
    steps: z.strictObject({ default: z.number().int().positive(), max: z.number().int().positive() }).optional(),
    /** Generate: images per request (1–4). */
    max_variants: z.number().int().min(1).max(4).optional(),
    /** Generate: whether negative_prompt is used. */
    negative_prompt: z.boolean().optional(),
    /** Multi-edit: images per request (the first is the base). */
    max_input_images: z.number().int().min(1).max(16).optional(),
    /** Input images (edit, upscale, background removal): pixel and byte bounds. */
    input_min_pixels: z.number().int().positive().optional(),
    input_max_pixels: z.number().int().positive().optional(),
    input_max_bytes: z.number().int().positive().optional(),
    /** Upscale: the largest output, and the largest factor. */
    max_output_pixels: z.number().int().positive().optional(),
    max_scale: z.number().min(2).max(8).optional(),
  })
  .superRefine((s, c) => {
    if (s.steps && s.steps.default > s.steps.max) c.addIssue({ code: 'custom', path: ['steps'], message: 'steps.default must not exceed steps.max' });
    if (s.default_resolution && s.resolutions && !s.resolutions.includes(s.default_resolution)) {
      c.addIssue({ code: 'custom', path: ['default_resolution'], message: `default_resolution "${s.default_resolution}" is not one of resolutions` });
    }
    if (s.input_min_pixels && s.input_max_pixels && s.input_min_pixels > s.input_max_pixels) {
      c.addIssue({ code: 'custom', path: ['input_min_pixels'], message: 'input_min_pixels must not exceed input_max_pixels' });
    }
  });

export type ImageSpec = z.infer<typeof imageSpec>;

/** An image-family model as this file sees it (schema.ts imports this file, so it cannot name ModelEntry). */
export interface ImageModelLike {
  id: string;
  type: string;
  demo?: boolean;
  image?: ImageSpec;
  engine: { kind: string };
  pricing: {
    per_image_usd?: number;
    per_image_diem?: number;
    per_image_by_size?: Record<string, { usd: number; diem?: number }>;
    per_image_step_usd?: number;
    per_image_step_diem?: number;
  };
}

/** The limits a request is checked against: the catalogue's, with the public API's defaults where it says nothing. */
export interface ImageLimits {
  promptCharacterLimit: number;
  maxSide: number;
  widthHeightDivisor: number;
  defaultWidth: number;
  defaultHeight: number;
  aspectRatios: string[];
  resolutions: Resolution[];
  defaultResolution: Resolution;
  steps: { default: number; max: number };
  maxVariants: number;
  negativePrompt: boolean;
  maxInputImages: number;
  inputMinPixels: number;
  inputMaxPixels: number;
  inputMaxBytes: number;
  maxOutputPixels: number;
  maxScale: number;
  /** Sizes the price list names, when the model is priced only by size (then only these sizes can be asked for). */
  pricedSizes: string[] | undefined;
}

/** The public API's input bound: files under 25 MB. */
export const MAX_INPUT_BYTES = 25 * 1024 * 1024;
/** The public API's edit aspect ratios. */
export const EDIT_ASPECT_RATIOS = ['1:1', '3:2', '16:9', '21:9', '9:16', '2:3', '3:4', '4:5'];

export function imageLimits(m: ImageModelLike): ImageLimits {
  const s = m.image ?? {};
  const [w, h] = (s.default_size ?? '1024x1024').split('x').map(Number);
  const edit = m.type === 'inpaint';
  return {
    // The public API: 1,500 characters for generation (its OpenAI form's cap), 32,768 for edits.
    promptCharacterLimit: s.prompt_character_limit ?? (edit ? 32_768 : 1500),
    maxSide: s.max_side ?? 1280,
    widthHeightDivisor: s.width_height_divisor ?? 8,
    defaultWidth: w,
    defaultHeight: h,
    aspectRatios: s.aspect_ratios ?? (edit ? EDIT_ASPECT_RATIOS : []),
    resolutions: s.resolutions ?? (edit ? ['1K'] : []),
    defaultResolution: s.default_resolution ?? s.resolutions?.[0] ?? '1K',
    steps: s.steps ?? { default: 8, max: 50 },
    maxVariants: s.max_variants ?? 4,
    negativePrompt: s.negative_prompt ?? true,
    maxInputImages: s.max_input_images ?? (edit ? 3 : 1),
    // The public API: edit and upscale inputs of at least 65,536 px (256²), edits up to 33,177,600 px (8K UHD),
    // upscales to 4096²; background removal names no lower bound.
    inputMinPixels: s.input_min_pixels ?? (m.type === 'background-remove' ? 1 : 65_536),
    inputMaxPixels: s.input_max_pixels ?? (m.type === 'upscale' ? 4_194_304 : 33_177_600),
    inputMaxBytes: s.input_max_bytes ?? MAX_INPUT_BYTES,
    maxOutputPixels: s.max_output_pixels ?? 16_777_216,
    maxScale: s.max_scale ?? 4,
    pricedSizes: m.pricing.per_image_usd === undefined && m.pricing.per_image_by_size ? Object.keys(m.pricing.per_image_by_size) : undefined,
  };
}

const SOURCES: Record<ImageEngineKind, string> = {
  'demo-image': 'lagoon-demo',
  'demo-edit': 'lagoon-demo',
  'demo-background-remove': 'lagoon-demo',
  esrgan: 'esrgan-onnxruntime',
  'sharp-upscale': 'sharp',
  'openai-images': 'openai-compatible',
  a1111: 'automatic1111',
  comfyui: 'comfyui',
  rembg: 'rembg',
};

/** Whether a safe-mode check can run for this model: the upstream's own flag, or none at all. */
export function contentCheckOf(kind: string): 'upstream' | 'none' {
  return FLAGGING_ENGINES.has(kind) ? 'upstream' : 'none';
}

/**
 * The /models `model_spec` fields of an image-family model, after the common ones (wire.ts): its constraints, its
 * per-image prices, and what it does. Token prices, context and text capabilities do not apply and are replaced.
 */
export function imageWireSpec(m: ImageModelLike, publicShapes = false): Record<string, unknown> {
  const l = imageLimits(m);
  const p = m.pricing;
  const perImage = p.per_image_usd === undefined ? null : { usd: p.per_image_usd, diem: p.per_image_diem ?? p.per_image_usd };
  const pricing: Record<string, unknown> = {};
  if (m.type === 'upscale') pricing.upscale = perImage && { '2x': perImage, '3x': perImage, '4x': perImage };
  else if (m.type === 'inpaint') pricing.inpaint = perImage;
  else pricing.generation = perImage;
  if (p.per_image_by_size) {
    pricing.bySize = Object.fromEntries(Object.entries(p.per_image_by_size).map(([size, r]) => [size, { usd: r.usd, diem: r.diem ?? r.usd }]));
  }
  if (p.per_image_step_usd !== undefined) pricing.perStep = { usd: p.per_image_step_usd, diem: p.per_image_step_diem ?? p.per_image_step_usd };
  const kind = m.engine.kind;
  const jobs = isImageEngineKind(kind) ? ENGINE_JOBS[kind] : [];
  const job = isImageModelType(m.type) ? JOB_OF_TYPE[m.type] : undefined;
  const constraints: Record<string, unknown> =
    job === 'generate'
      ? {
          promptCharacterLimit: l.promptCharacterLimit,
          steps: l.steps,
          widthHeightDivisor: l.widthHeightDivisor,
          maxSide: l.maxSide,
          defaultSize: `${l.defaultWidth}x${l.defaultHeight}`,
          aspectRatios: l.aspectRatios,
          defaultAspectRatio: l.aspectRatios[0] ?? null,
          resolutions: l.resolutions,
          defaultResolution: l.resolutions.length ? l.defaultResolution : null,
          maxVariants: l.maxVariants,
          ...(l.pricedSizes ? { sizes: l.pricedSizes } : {}),
        }
      : job === 'edit'
        ? {
            promptCharacterLimit: l.promptCharacterLimit,
            aspectRatios: l.aspectRatios,
            resolutions: l.resolutions,
            defaultResolution: l.defaultResolution,
            combineImages: l.maxInputImages > 1,
            maxInputImages: l.maxInputImages,
          }
        : job === 'upscale'
          ? { scale: { min: 2, max: l.maxScale, default: 2 }, maxOutputPixels: l.maxOutputPixels }
          : {};
  constraints.input = job === 'generate' ? null : { minPixels: l.inputMinPixels, maxPixels: l.inputMaxPixels, maxBytes: l.inputMaxBytes };
  if (publicShapes) return publicImageSpec(kind, job, constraints, pricing);
  return {
    modelSource: isImageEngineKind(kind) ? SOURCES[kind] : kind,
    capabilities: {
      tasks: job && jobs.includes(job) ? [job] : [],
      outputFormats: job === 'upscale' || job === 'background-remove' ? ['png'] : ['jpeg', 'png', 'webp'],
      supportsSeed: job === 'generate' || job === 'edit',
      supportsNegativePrompt: job === 'generate' && l.negativePrompt,
      supportsStylePresets: job === 'generate',
      supportsStyleReferences: false,
      // What safe_mode can rely on: the upstream's own content flag, or no check at all (then nothing is blurred).
      contentCheck: contentCheckOf(kind),
    },
    constraints,
    pricing,
  };
}

/** The public document's fields of each constraints shape an image-family model can fit (Image, or Inpaint). */
const IMAGE_CONSTRAINTS = ['promptCharacterLimit', 'steps', 'widthHeightDivisor', 'aspectRatios', 'defaultAspectRatio', 'resolutions', 'defaultResolution'];
const INPAINT_CONSTRAINTS = ['aspectRatios', 'promptCharacterLimit', 'combineImages', 'maxInputImages', 'resolutions', 'defaultResolution'];

/**
 * In the public API's shapes: `capabilities` is the text models' record there, so an image model has none (its
 * `supportsStyleReferences` sits in model_spec), and `constraints` keeps the documented fields of the Image or
 * Inpaint shape (an upscaler's scale and size limits fit neither, so it has the empty Image shape).
 */
function publicImageSpec(
  kind: string,
  job: string | undefined,
  constraints: Record<string, unknown>,
  pricing: Record<string, unknown>,
): Record<string, unknown> {
  const keep = job === 'generate' ? IMAGE_CONSTRAINTS : job === 'edit' ? INPAINT_CONSTRAINTS : [];
  return {
    modelSource: isImageEngineKind(kind) ? SOURCES[kind] : kind,
    capabilities: undefined,
    supportsStyleReferences: false,
    constraints: Object.fromEntries(keep.filter((k) => constraints[k] !== undefined && constraints[k] !== null).map((k) => [k, constraints[k]])),
    pricing,
  };
}

/** Why an image engine cannot serve this model (an engine on a model type whose job it does not do), if it cannot. */
export function imageEngineProblem(m: { id: string; type: string; engine: { kind: string } }): string | undefined {
  const kind = m.engine.kind;
  if (!isImageEngineKind(kind)) return undefined;
  const job = isImageModelType(m.type) ? JOB_OF_TYPE[m.type] : undefined;
  if (job && ENGINE_JOBS[kind].includes(job)) return undefined;
  const types = IMAGE_MODEL_TYPES.filter((t) => ENGINE_JOBS[kind].includes(JOB_OF_TYPE[t]));
  return `model "${m.id}": a ${kind} engine serves models of type ${types.join(' or ')}, not ${m.type}`;
}
