// What a video catalogue model declares beyond the common fields: its engine and its durations, resolutions and
// aspect ratios. Owned by the video capability (lib/video); schema.ts joins these in.
import { z } from 'zod';
import type { ModelEntry } from './schema.ts';

/** The longest a video attempt may run by default before it fails refunded. */
export const DEFAULT_VIDEO_TIMEOUT_MS = 30 * 60_000;

const engineCommon = {
  /** One attempt, from claim to the file in place; past it the job fails and is refunded (default 30 min). */
  timeoutMs: z.number().int().positive().optional(),
};

/** An upstream server people run; its URL and key come from the operator's catalogue, never from a request. */
const upstream = {
  baseUrl: z.string().url(),
  /** Name of the environment variable holding the upstream's credential (never the credential itself). */
  apiKeyEnv: z.string().optional(),
  /** How often the upstream job is polled (default 5 s for OpenAI, 1 s for ComfyUI). */
  pollMs: z.number().int().positive().optional(),
  ...engineCommon,
};

/** The project's own demo video engine: frames from the prompt and seed, encoded by ffmpeg; named as a demo. */
const demoVideoEngine = z.strictObject({
  kind: z.literal('demo-video'),
  /** Frames per second (default 24). */
  fps: z.number().int().min(1).max(60).optional(),
  ...engineCommon,
});

/** The OpenAI videos API: POST /videos, GET /videos/{id}, GET /videos/{id}/content (baseUrl with its /v1). */
const openaiVideosEngine = z.strictObject({
  kind: z.literal('openai-videos'),
  /** The upstream's model name (sora-2…); defaults to the catalogue id. */
  model: z.string().optional(),
  /** `WxH` per `aspect_ratio@resolution` ("16:9@720p": "1280x720"), when the upstream's sizes are not the plain arithmetic. */
  sizes: z.record(z.string().regex(/^\d+:\d+@\d+p$/, 'keys are aspect@resolution, e.g. 16:9@720p'), z.string().regex(/^\d+x\d+$/)).optional(),
  ...upstream,
});

/**
 * ComfyUI: an API-format workflow file per model with placeholders ("{{prompt}}", "{{negative_prompt}}", "{{seed}}",
 * "{{width}}", "{{height}}", "{{frames}}", "{{fps}}", "{{duration}}", "{{image}}", "{{end_image}}", "{{audio}}",
 * "{{video}}", "{{filename_prefix}}"), submitted to /prompt and followed through /history to /view. The path is
 * relative to the catalogue file and may name ${VAR}s, like the llama path.
 */
const comfyuiVideoEngine = z.strictObject({
  kind: z.literal('comfyui-video'),
  workflow: z.string().min(1),
  /** Frames per second the workflow renders at ("{{fps}}", and frames = duration × fps; default 24). */
  fps: z.number().int().min(1).max(60).optional(),
  ...upstream,
});

export const videoEngines = [demoVideoEngine, openaiVideosEngine, comfyuiVideoEngine] as const;

export type VideoEngineSpec = z.infer<(typeof videoEngines)[number]>;

/** What a request may reference, by field: `image_url`, `end_image_url`, `audio_url`, `video_url`. */
export const VIDEO_INPUTS = ['image', 'end_image', 'audio', 'video'] as const;
export type VideoInput = (typeof VIDEO_INPUTS)[number];

const seconds = z.number().int().min(1).max(30);
const resolution = z.string().regex(/^[1-9]\d{1,3}p$/, 'resolutions are the short side in pixels, e.g. 720p');
const aspect = z.string().regex(/^[1-9]\d{0,2}:[1-9]\d{0,2}$/, 'aspect ratios are W:H, e.g. 16:9');

/** Durations, resolutions and aspect ratios of a video model, listed by /models. Every field has a default. */
export const videoSpec = z
  .strictObject({
    /** The durations offered, in whole seconds. */
    durations: z.array(seconds).min(1).default([5]),
    default_duration: seconds.optional(),
    /** Resolutions by their short side ("720p": 1280×720 at 16:9). */
    resolutions: z.array(resolution).min(1).default(['720p']),
    default_resolution: resolution.optional(),
    aspect_ratios: z.array(aspect).min(1).default(['16:9']),
    default_aspect_ratio: aspect.optional(),
    /** Whether the model can give the clip a soundtrack (`audio`, default true when it can). */
    audio: z.boolean().default(false),
    /** What requests may reference (image-to-video, a soundtrack, video-to-video). */
    inputs: z.array(z.enum(VIDEO_INPUTS)).default([]),
    prompt_character_limit: z.number().int().positive().max(20_000).default(2500),
  })
  .superRefine((s, c) => {
    const check = (field: string, value: string | number | undefined, list: readonly (string | number)[]) => {
      if (value !== undefined && !list.includes(value)) c.addIssue({ code: 'custom', path: [field], message: `${value} is not among the offered values` });
    };
    check('default_duration', s.default_duration, s.durations);
    check('default_resolution', s.default_resolution, s.resolutions);
    check('default_aspect_ratio', s.default_aspect_ratio, s.aspect_ratios);
  });

export type VideoSpec = z.infer<typeof videoSpec>;

/** The references each engine can pass on; a model offers those it declares and its engine takes. */
const ENGINE_INPUTS: Record<VideoEngineSpec['kind'], readonly VideoInput[]> = {
  'demo-video': ['image', 'audio'],
  'openai-videos': ['image'],
  'comfyui-video': VIDEO_INPUTS,
};

/** A video model's limits, with the defaults filled in (the catalogue may leave `video` out). */
export function videoLimits(m: ModelEntry): Required<VideoSpec> {
  const s = m.video ?? videoSpec.parse({});
  const takes = ENGINE_INPUTS[m.engine.kind as VideoEngineSpec['kind']] ?? [];
  return {
    ...s,
    inputs: s.inputs.filter((i) => takes.includes(i)),
    default_duration: s.default_duration ?? (s.durations.includes(5) ? 5 : s.durations[0]),
    default_resolution: s.default_resolution ?? s.resolutions[0],
    default_aspect_ratio: s.default_aspect_ratio ?? s.aspect_ratios[0],
  };
}

/** The /models fields of a video model (model_spec), with its price per second in `pricing`. */
export function videoWireSpec(m: ModelEntry, pricing: Record<string, unknown>): Record<string, unknown> {
  const v = videoLimits(m);
  if (m.pricing.per_second_usd !== undefined)
    pricing.per_second = { usd: m.pricing.per_second_usd, diem: m.pricing.per_second_diem ?? m.pricing.per_second_usd };
  return {
    modelSource: m.engine.kind === 'demo-video' ? 'lagoon-demo' : m.engine.kind,
    promptCharacterLimit: v.prompt_character_limit,
    constraints: {
      durations: v.durations.map((d) => `${d}s`),
      default_duration: `${v.default_duration}s`,
      resolutions: v.resolutions,
      default_resolution: v.default_resolution,
      aspect_ratios: v.aspect_ratios,
      default_aspect_ratio: v.default_aspect_ratio,
      audio: v.audio,
      // The public record's fields: whether a request may turn the soundtrack on or off, what the model makes from
      // (no input is ever required here, so text-to-video unless it transforms a video), and the prompt's limit.
      audio_configurable: v.audio,
      model_type: v.inputs.includes('video') ? 'video' : 'text-to-video',
      prompt_character_limit: v.prompt_character_limit,
      inputs: v.inputs,
    },
  };
}
