// The `video` job kind (lib/jobs): /video/quote, /video/queue, /video/retrieve and /video/complete. A model's price is
// per second of video, so the quote, the hold and the bill are the clip's seconds at that price. Engines: the demo
// (demo.ts), the OpenAI videos API (openai-videos.ts) and ComfyUI workflows (comfyui.ts).
import sharp, { type Metadata } from 'sharp';
import path from 'node:path';
import { ApiError } from '../api/errors.ts';
import type { JobKind } from '../jobs/types.ts';
import { DEFAULT_VIDEO_TIMEOUT_MS, type VideoInput } from '../models/video-models.ts';
import { probe } from '../engines/video/ffmpeg.ts';
import type { VideoEngines } from '../engines/video/registry.ts';
import { INPUT_RULES, parseQueue, parseQuote, type VideoRequest } from '../engines/video/request.ts';

/** The demo renders well within this; a stuck render is ended. */
const DEMO_TIMEOUT_MS = 5 * 60_000;
/** A soundtrack given as audio_url may be at most this long (the reference's limit). */
const MAX_AUDIO_SECONDS = 30;

export interface VideoKindDeps {
  /** The service's video engines, one per model. */
  engines: VideoEngines;
}

export function videoJobKind(deps: VideoKindDeps): JobKind<VideoRequest> {
  return {
    name: 'video',
    modelTypes: ['video'],
    endpoint: '/video/queue',
    unit: 'second',

    quote: (body, model, wire) => parseQuote(body, model, wire),

    validate(body, model, wire) {
      const { request, refs } = parseQueue(body, model, wire);
      return { request, estimate: { seconds: request.seconds }, pending: refs };
    },

    async prepare(prepared, _model, ctx) {
      const request = { ...prepared.request, inputs: { ...prepared.request.inputs } };
      for (const [input, url] of Object.entries(prepared.pending ?? {}) as [VideoInput, string][]) {
        const field = `${input}_url`;
        const got = await ctx.fetchReference(url, { field, ...INPUT_RULES[input] });
        if (input === 'audio' || input === 'video') await checkMedia(input, field, got.path, ctx.signal);
        else await checkImage(field, got.path);
        request.inputs[input] = { path: got.path, contentType: got.contentType };
      }
      return { request, estimate: prepared.estimate };
    },

    async run(job, ctx) {
      return (await deps.engines.get(job.model)).run(job, ctx);
    },

    timeoutMs(model) {
      const e = model.engine as { kind: string; timeoutMs?: number };
      return e.timeoutMs ?? (e.kind === 'demo-video' ? DEMO_TIMEOUT_MS : DEFAULT_VIDEO_TIMEOUT_MS);
    },

    expectedMs(model, req) {
      // The demo draws and encodes about a second of 512² video in half a second here; upstreams take minutes.
      if (model.engine.kind === 'demo-video') return 1_000 + (req.seconds * 500 * req.width * req.height) / (512 * 512);
      return 60_000 + req.seconds * 12_000;
    },

    retrieveLimits: (limits) => ({ ...limits, video: { ...limits.video, queue: limits.video.retrieve } }),
  };
}

/** An audio or video reference must be one ffmpeg reads; a soundtrack at most 30 s. */
async function checkMedia(input: 'audio' | 'video', field: string, file: string, signal: AbortSignal): Promise<void> {
  const info = await probe(file, signal).catch(() => undefined);
  const has = info?.streams.some((s) => s.codec_type === input);
  if (!info || !has) throw new ApiError('CORRUPTED_FILE', `${field} could not be read as ${input}`, { param: field });
  if (input === 'audio' && info.duration > MAX_AUDIO_SECONDS) {
    throw new ApiError('INVALID_REQUEST', `${field} is ${Math.round(info.duration)} s long; at most ${MAX_AUDIO_SECONDS} s`, { param: field });
  }
}

/** The largest reference image, in pixels and on its longer side. */
const MAX_IMAGE_PIXELS = 40_000_000;
const MAX_IMAGE_SIDE = 8192;

/**
 * A reference image is decoded whole before the job is queued (libvips' threads, off the event loop): a truncated or
 * corrupt file is a 400 now, rather than an encoder spinning on it until the job's timeout (issue 28).
 */
async function checkImage(field: string, file: string): Promise<void> {
  const refuse = (why: string) => new ApiError('CORRUPTED_FILE', `${field} ${why}`, { param: field });
  let meta: Metadata;
  try {
    meta = await sharp(file, { limitInputPixels: MAX_IMAGE_PIXELS }).metadata();
  } catch {
    throw refuse('could not be read as an image');
  }
  const { width = 0, height = 0 } = meta;
  if (!width || !height) throw refuse('has no dimensions');
  if (Math.max(width, height) > MAX_IMAGE_SIDE)
    throw new ApiError('INVALID_REQUEST', `${field} is ${width}×${height}; at most ${MAX_IMAGE_SIDE} px a side`, { param: field });
  try {
    await sharp(file, { limitInputPixels: MAX_IMAGE_PIXELS, failOn: 'truncated' }).stats();
  } catch {
    throw refuse('is not a complete image (truncated or corrupt)');
  }
}

/** The catalogue file's folder, for the kind's deps. */
export const catalogueDirOf = (modelsFile: string) => path.dirname(path.resolve(modelsFile));
