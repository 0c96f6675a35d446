// The bodies of /video/quote and /video/queue (media-api.md §3), checked against what the model offers: its
// durations, resolutions, aspect ratios, soundtrack and the references it takes. Everything a client can get wrong is
// a 400 that names the field.
import { z } from 'zod';
import { ApiError } from '../../api/errors.ts';
import { parseOrThrow } from '../../api/validation.ts';
import type { WireNames } from '../../api/wire.ts';
import type { ModelEntry } from '../../models/schema.ts';
import { type VideoInput, videoLimits } from '../../models/video-models.ts';

/** A reference the job fetched at queue time (in its inputs folder). */
export interface StoredInput {
  path: string;
  contentType: string;
}

/** What a video job stores and its engine receives. */
export interface VideoRequest {
  prompt: string;
  negative_prompt?: string;
  seconds: number;
  aspect_ratio: string;
  resolution: string;
  width: number;
  height: number;
  audio: boolean;
  /** Chosen at queue time when the client gave none, so every attempt makes the same clip. */
  seed: number;
  inputs: Partial<Record<VideoInput, StoredInput>>;
}

/** `"5s"`, `"5"` or `5`. */
const duration = z.union([
  z.number().int('duration must be a whole number of seconds'),
  z
    .string()
    .regex(/^\s*\d{1,3}\s*s?\s*$/i, 'duration is a number of seconds, e.g. "5s"')
    .transform((s) => Number.parseInt(s, 10)),
]);

const url = z
  .string()
  .min(1)
  .max(50 * 1024 * 1024);

/** Fields of the reference this server does not implement for any model: named in a 400 rather than ignored. */
const UNSUPPORTED = [
  'upscale_factor',
  'reference_image_urls',
  'reference_video_urls',
  'reference_audio_urls',
  'reference_document_urls',
  'elements',
  'scene_image_urls',
  'keyframes',
  'omni_reference_task_type',
  'consents',
] as const;

const unsupported = Object.fromEntries(UNSUPPORTED.map((k) => [k, z.unknown().optional()])) as Record<
  (typeof UNSUPPORTED)[number],
  z.ZodOptional<z.ZodUnknown>
>;

const queueSchema = z.strictObject({
  model: z.string().min(1),
  prompt: z.string().min(1).max(20_000),
  negative_prompt: z.string().max(20_000).optional(),
  duration,
  aspect_ratio: z.string().max(16).optional(),
  resolution: z.string().max(16).optional(),
  audio: z.boolean().optional(),
  seed: z.number().int().min(-999_999_999).max(999_999_999).optional(),
  image_url: url.optional(),
  end_image_url: url.optional(),
  audio_url: url.optional(),
  video_url: url.optional(),
  ...unsupported,
});

const quoteSchema = z.strictObject({
  model: z.string().min(1),
  duration,
  aspect_ratio: z.string().max(16).optional(),
  resolution: z.string().max(16).optional(),
  audio: z.boolean().optional(),
  upscale_factor: z.unknown().optional(),
  video_url: z.string().optional(),
  reference_video_total_duration: z.number().min(0).max(150).optional(),
});

export type QueueBody = z.infer<typeof queueSchema>;

const invalid = (param: string, message: string) => new ApiError('INVALID_REQUEST', message, { param });

/** `1:1` and `512p` → 512×512; `16:9` and `720p` → 1280×720 (the short side is the resolution; sides are even). */
export function dimensions(aspect: string, resolution: string): { width: number; height: number } {
  const [w, h] = aspect.split(':').map(Number);
  const short = Number.parseInt(resolution, 10);
  const even = (n: number) => Math.max(2, Math.round(n / 2) * 2);
  return w >= h ? { width: even((short * w) / h), height: even(short) } : { width: even(short), height: even((short * h) / w) };
}

/** The shape the model makes: duration, aspect ratio, resolution and soundtrack, each checked against its offer. */
function shape(model: ModelEntry, body: { duration: number; aspect_ratio?: string; resolution?: string; audio?: boolean }) {
  const v = videoLimits(model);
  const offered = (xs: readonly (string | number)[], unit = '') => xs.map((x) => `${x}${unit}`).join(', ');
  if (!v.durations.includes(body.duration)) throw invalid('duration', `duration ${body.duration}s is not offered by ${model.id}: ${offered(v.durations, 's')}`);
  const aspect = body.aspect_ratio ?? v.default_aspect_ratio;
  if (!v.aspect_ratios.includes(aspect)) throw invalid('aspect_ratio', `aspect_ratio ${aspect} is not offered by ${model.id}: ${offered(v.aspect_ratios)}`);
  const resolution = body.resolution ?? v.default_resolution;
  if (!v.resolutions.includes(resolution)) throw invalid('resolution', `resolution ${resolution} is not offered by ${model.id}: ${offered(v.resolutions)}`);
  if (body.audio === true && !v.audio) throw invalid('audio', `${model.id} makes silent clips: leave out audio or set it to false`);
  return { seconds: body.duration, aspect, resolution, audio: body.audio ?? v.audio, ...dimensions(aspect, resolution) };
}

/** The quote body → seconds to price (the model's price is per second). */
export function parseQuote(body: unknown, model: ModelEntry, wire: WireNames): { seconds: number } {
  const q = parseOrThrow(quoteSchema, body, wire);
  if (q.upscale_factor !== undefined) throw invalid('upscale_factor', `${model.id} is not an upscale model`);
  return { seconds: shape(model, q).seconds };
}

/** The queue body → the request (references not fetched yet: `refs` names them by input) and the seconds to hold. */
export function parseQueue(body: unknown, model: ModelEntry, wire: WireNames): { request: VideoRequest; refs: Partial<Record<VideoInput, string>> } {
  const q = parseOrThrow(queueSchema, body, wire);
  for (const k of UNSUPPORTED) if (q[k] !== undefined) throw invalid(k, `${k} is not supported by ${model.id}`);
  const v = videoLimits(model);
  if (q.prompt.length > v.prompt_character_limit) {
    throw invalid('prompt', `prompt is ${q.prompt.length} characters; ${model.id} takes at most ${v.prompt_character_limit}`);
  }
  const refs: Partial<Record<VideoInput, string>> = {};
  const fields = { image: q.image_url, end_image: q.end_image_url, audio: q.audio_url, video: q.video_url } as const;
  for (const [input, value] of Object.entries(fields) as [VideoInput, string | undefined][]) {
    if (value === undefined) continue;
    if (!v.inputs.includes(input)) throw invalid(`${input}_url`, `${input}_url is not supported by ${model.id}`);
    refs[input] = value;
  }
  const s = shape(model, q);
  const seed = q.seed ?? Math.floor(Math.random() * 999_999_999);
  const request: VideoRequest = {
    prompt: q.prompt,
    ...(q.negative_prompt ? { negative_prompt: q.negative_prompt } : {}),
    seconds: s.seconds,
    aspect_ratio: s.aspect,
    resolution: s.resolution,
    width: s.width,
    height: s.height,
    audio: s.audio,
    seed,
    inputs: {},
  };
  return { request, refs };
}

/** What each reference may be: media types and sizes (the reference's limits). */
export const INPUT_RULES: Record<VideoInput, { accept: string[]; maxBytes: number }> = {
  image: { accept: ['image/png', 'image/jpeg', 'image/webp'], maxBytes: 20 * 1024 * 1024 },
  end_image: { accept: ['image/png', 'image/jpeg', 'image/webp'], maxBytes: 20 * 1024 * 1024 },
  audio: { accept: ['audio/'], maxBytes: 15 * 1024 * 1024 },
  video: { accept: ['video/'], maxBytes: 50 * 1024 * 1024 },
};
