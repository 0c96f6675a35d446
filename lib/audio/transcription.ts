// POST /audio/transcriptions and /video/transcriptions, framework-free, on the metered call in seconds: the upload (or
// the fetched media file) is sniffed, decoded by ffmpeg to 16 kHz mono WAV — whose length is the seconds held and
// billed, a started second counting whole — then transcribed by the model's engine behind its admission queue.
// Bad input never costs anything: an unreadable file is a 400, no audio a 422, too much a 413, all before the hold;
// an engine failure releases the hold.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ApiError } from '../api/errors.ts';
import { parseOrThrow } from '../api/validation.ts';
import type { Amount } from '../billing/money.ts';
import { DEFAULT_MAX_AUDIO_BYTES, DEFAULT_MAX_AUDIO_SECONDS } from '../models/audio-models.ts';
import { resolveModel } from '../models/catalogue.ts';
import type { ModelEntry } from '../models/schema.ts';
import { safeFetch } from '../net/safe-fetch.ts';
import { type CallContext, type CallDeps, type CallMeta, engineFailure } from '../engines/call.ts';
import { metered, refuseUnaffordable } from '../billing/metered.ts';
import type { AudioEngines } from '../engines/audio/registry.ts';
import { decodeToWav } from '../engines/audio/ffmpeg.ts';
import { MissingBinary, ProcessFailed } from '../engines/audio/processes.ts';
import { transcriptionFieldsSchema, videoTranscriptionSchema } from './schema.ts';
import { AUDIO_TYPES_TEXT, type MediaKind, RAW_PCM, sniffMedia } from '../engines/audio/sniff.ts';
import { shapeTranscript, type TranscriptBody } from './transcript-format.ts';
import { CHAT_AUDIO_MAX_SECONDS, type Transcript } from '../engines/audio/types.ts';
import { log } from '../log.ts';

export type AudioDeps = Pick<CallDeps, 'store' | 'ledger' | 'limiter' | 'catalogue' | 'wire' | 'fetchAllowHosts'> & { audio: AudioEngines };

export interface UploadedFile {
  filename?: string;
  contentType?: string;
  bytes: Buffer;
}

export interface TranscriptionResult {
  meta: CallMeta;
  charged: Amount;
  body: TranscriptBody;
}

/** The asr model a request names (default: the catalogue's default asr model); another type is a 400. */
export function transcriptionModel(deps: Pick<AudioDeps, 'catalogue'>, name: string | undefined): ModelEntry {
  const model = resolveModel(deps.catalogue, name ?? 'default', 'asr');
  if (model.type !== 'asr')
    throw new ApiError('INVALID_MODEL', `Model ${model.id} is a ${model.type} model, not a transcription (asr) model`, { param: 'model' });
  return model;
}

const maxBytesOf = (m: ModelEntry) => m.audio?.max_file_bytes ?? DEFAULT_MAX_AUDIO_BYTES;
const maxSecondsOf = (m: ModelEntry) => m.audio?.max_duration_seconds ?? DEFAULT_MAX_AUDIO_SECONDS;
const sizeText = (bytes: number) => (bytes >= 1048576 ? `${Math.floor(bytes / 1048576)} MB` : `${Math.floor(bytes / 1024)} KB`);

/** A scratch directory for one request's files, removed afterwards whatever happened. */
async function inTempDir<T>(work: (dir: string) => Promise<T>): Promise<T> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'lagoon-audio-'));
  try {
    return await work(dir);
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

interface DecodeSource {
  /** The file holding the media. */
  path: string;
  /** ffmpeg's input options: the demuxer (or raw PCM's layout). */
  inputArgs: string[];
  original?: { bytes: Buffer; filename: string; contentType: string };
}

interface Decoded {
  /** The 16 kHz mono WAV. */
  path: string;
  /** Its length (the figure `duration` reports). */
  seconds: number;
  /** Runs the model's engine on it; engine failures come back as ApiErrors. */
  transcribe(): Promise<Transcript>;
  router: string;
}

/**
 * Admits the request to the engine's queue, decodes the source (400 unreadable, 422 silent-empty, 400 too long), and
 * hands the decoded audio to `then`, which holds and bills it (or not: chat's input_audio bills the text as tokens).
 */
async function withDecoded<T>(
  deps: AudioDeps,
  ctx: Pick<CallContext, 'requestId' | 'signal'>,
  model: ModelEntry,
  src: DecodeSource,
  opts: { language?: string; prompt?: string; words: boolean; dir: string; maxSeconds?: number },
  then: (decoded: Decoded) => Promise<T>,
): Promise<T> {
  const { engine, queue } = await deps.audio.transcriber(model);
  const ffmpeg = await deps.audio.ffmpeg(model);
  const unavailable = (e: MissingBinary) => new ApiError('ENGINE_UNAVAILABLE', `Model ${model.id} is unavailable on this server: ${e.message}`);
  let release: () => void;
  try {
    release = await queue.acquire(ctx.signal);
  } catch (e) {
    throw engineFailure(e);
  }
  try {
    const maxSeconds = Math.min(opts.maxSeconds ?? Number.POSITIVE_INFINITY, maxSecondsOf(model));
    let decoded;
    try {
      decoded = await decodeToWav(ffmpeg, src.path, path.join(opts.dir, 'audio.wav'), { maxSeconds, inputArgs: src.inputArgs, signal: ctx.signal });
    } catch (e) {
      if (e instanceof MissingBinary) throw unavailable(e);
      if (e instanceof ProcessFailed) throw new ApiError('CORRUPTED_FILE', 'The file could not be decoded as audio (it is damaged, or has no audio track)');
      throw e;
    }
    if (decoded.truncated) {
      const limit =
        opts.maxSeconds !== undefined && opts.maxSeconds < maxSecondsOf(model) ? 'a chat message may carry' : `model ${model.id} transcribes at once`;
      throw new ApiError('INVALID_REQUEST', `The audio is longer than ${maxSeconds} seconds, the most ${limit}`, { param: 'file' });
    }
    // Less than one 10 ms frame is nothing a recogniser can hear.
    if (decoded.seconds < 0.01) throw new ApiError('EMPTY_AUDIO');
    const { path: wavPath, seconds } = decoded;
    return await then({
      path: wavPath,
      seconds,
      router: engine.router,
      async transcribe() {
        try {
          return await engine.transcribe(
            { wavPath, seconds, original: src.original },
            { language: opts.language, prompt: opts.prompt, words: opts.words, signal: ctx.signal },
          );
        } catch (e) {
          if (e instanceof MissingBinary) throw unavailable(e);
          if (e instanceof ProcessFailed) log.error({ reason: e.message }, `[${ctx.requestId}] transcription with ${model.id} failed`);
          throw engineFailure(e);
        }
      },
    });
  } finally {
    release();
  }
}

/**
 * 402 before any decoding when the caller cannot pay for even one second: decoding up to 30 minutes of audio is the
 * expensive part, and its length is known only after it (the hold then covers every started second).
 */
const refuseWithoutCredit = (deps: AudioDeps, ctx: CallContext, model: ModelEntry) =>
  refuseUnaffordable(deps, ctx, { model, endpoint: 'transcription', unit: 'second', estimate: { seconds: 1 } });

/** Holds the started seconds of the decoded audio, transcribes, and bills them; a failure releases the hold. */
function billedTranscript(deps: AudioDeps, ctx: CallContext, model: ModelEntry, endpoint: string) {
  return (d: Decoded) => {
    const seconds = Math.ceil(d.seconds);
    return metered(deps, ctx, { model, endpoint, unit: 'second', estimate: { seconds } }, async (meter) => {
      const transcript = await d.transcribe();
      const charged = meter.settle({ seconds });
      return { transcript, seconds: d.seconds, charged, meta: { model, router: d.router, balancesBefore: meter.before, hold: meter.hold } as CallMeta };
    });
  };
}

/** The upload's container, or a 400 naming the accepted ones. */
function uploadKind(file: UploadedFile): MediaKind {
  const kind = sniffMedia(file.bytes);
  if (!kind?.audio) {
    throw new ApiError('UNSUPPORTED_FILE', `The file is not an audio type this endpoint accepts (${AUDIO_TYPES_TEXT})`, { param: 'file' });
  }
  return kind;
}

export async function runTranscription(
  deps: AudioDeps,
  ctx: CallContext,
  rawFields: Record<string, unknown>,
  file: UploadedFile | undefined,
): Promise<TranscriptionResult> {
  const fields = parseOrThrow(transcriptionFieldsSchema, rawFields, deps.wire);
  if (fields.stream) throw new ApiError('INVALID_REQUEST', 'Streamed transcription is not offered: leave out stream (or send false)', { param: 'stream' });
  if (!file) throw new ApiError('INVALID_REQUEST', 'file is required: send the audio as a multipart/form-data field named "file"', { param: 'file' });
  const model = transcriptionModel(deps, fields.model);
  if (file.bytes.length > maxBytesOf(model)) {
    throw new ApiError('PAYLOAD_TOO_LARGE', `The file is larger than ${sizeText(maxBytesOf(model))}, the most model ${model.id} takes`);
  }
  if (file.bytes.length === 0) throw new ApiError('EMPTY_AUDIO', 'The file is empty');
  const kind = uploadKind(file);
  await refuseWithoutCredit(deps, ctx, model);
  const wantWords = fields.timestamps === true || fields.timestamp_granularities?.includes('word') === true;
  return inTempDir(async (dir) => {
    const input = path.join(dir, 'upload');
    await fs.writeFile(input, file.bytes);
    const original = { bytes: file.bytes, filename: file.filename || `audio.${kind.demuxer}`, contentType: kind.contentType };
    const t = await withDecoded(
      deps,
      ctx,
      model,
      { path: input, inputArgs: ['-f', kind.demuxer], original },
      { language: fields.language, prompt: fields.prompt, words: wantWords, dir },
      billedTranscript(deps, ctx, model, '/audio/transcriptions'),
    );
    return { meta: t.meta, charged: t.charged, body: shapeTranscript(t.transcript, t.seconds, fields) };
  });
}

// Pages of video sites are not media files: their video is reached through site-specific downloaders (yt-dlp and
// the like), which this server does not run.
const SITE_HOSTS = [
  'youtube.com',
  'youtu.be',
  'youtube-nocookie.com',
  'vimeo.com',
  'tiktok.com',
  'instagram.com',
  'facebook.com',
  'fb.watch',
  'twitter.com',
  'x.com',
  'twitch.tv',
  'dailymotion.com',
  'soundcloud.com',
  'bilibili.com',
  'rumble.com',
  'reddit.com',
];

const needsSiteDownloader = (host: string) => SITE_HOSTS.some((h) => host === h || host.endsWith(`.${h}`));
const siteRefusal = (what: string) =>
  new ApiError(
    'INVALID_REQUEST',
    `${what} needs a site-specific downloader (such as yt-dlp), which this server does not run: give the URL of the media file itself (MP4, WEBM, MP3, …)`,
    { param: 'url' },
  );

export interface VideoTranscriptionResult {
  meta: CallMeta;
  charged: Amount;
  format: 'json' | 'text';
  transcript: string;
  language?: string;
}

export async function runVideoTranscription(deps: AudioDeps, ctx: CallContext, rawBody: unknown): Promise<VideoTranscriptionResult> {
  if (!rawBody || typeof rawBody !== 'object' || Array.isArray(rawBody)) throw new ApiError('INVALID_REQUEST', 'The request body must be a JSON object');
  const req = parseOrThrow(videoTranscriptionSchema, rawBody, deps.wire);
  const url = new URL(req.url);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ApiError('INVALID_REQUEST', 'url must be an http(s) URL', { param: 'url' });
  if (needsSiteDownloader(url.hostname.toLowerCase().replace(/\.$/, ''))) throw siteRefusal(`A page on ${url.hostname}`);
  const model = transcriptionModel(deps, req.model);
  // Unavailable engines, and callers who cannot pay for one second, answer before anything is fetched.
  await deps.audio.transcriber(model);
  await refuseWithoutCredit(deps, ctx, model);
  const fetched = await safeFetch(req.url, {
    allowHosts: deps.fetchAllowHosts,
    maxBytes: deps.audio.mediaMaxBytes,
    timeoutMs: 120_000,
    accept: 'video/*, audio/*;q=0.9, */*;q=0.1',
    signal: ctx.signal,
  });
  if (fetched.status !== 200) throw new ApiError('INVALID_REQUEST', `Could not fetch ${req.url}: HTTP ${fetched.status}`, { param: 'url' });
  const kind = sniffMedia(fetched.body);
  if (!kind) {
    const type = fetched.contentType?.split(';')[0].trim().toLowerCase();
    if (type === 'text/html' || /^\s*<(!doctype|html)/i.test(fetched.body.subarray(0, 256).toString('latin1')))
      throw siteRefusal('This URL is a web page, not a media file: it');
    throw new ApiError('UNSUPPORTED_FILE', `${req.url} is not a media file this server can read (content-type ${type ?? 'none'})`, { param: 'url' });
  }
  return inTempDir(async (dir) => {
    const input = path.join(dir, 'media');
    await fs.writeFile(input, fetched.body);
    const t = await withDecoded(
      deps,
      ctx,
      model,
      { path: input, inputArgs: ['-f', kind.demuxer] },
      { language: req.language, words: false, dir },
      billedTranscript(deps, ctx, model, '/video/transcriptions'),
    );
    return {
      meta: t.meta,
      charged: t.charged,
      format: req.response_format,
      transcript: t.transcript.text,
      language: t.transcript.language ?? model.audio?.languages?.[0],
    };
  });
}

/**
 * Chat's input_audio for a model without audio input: the audio is transcribed by the catalogue's default asr model
 * (unbilled here: the transcript is billed as prompt tokens, as a file's text is; hence the cap on its length) and the
 * text goes in its place. Undefined when no transcription model can run here.
 */
export async function transcribeForChat(
  deps: AudioDeps,
  ctx: Pick<CallContext, 'requestId' | 'signal'>,
  data: Buffer,
  format: string,
): Promise<string | undefined> {
  const model = deps.catalogue.models.find((m) => m.type === 'asr' && m.traits.includes('default')) ?? deps.catalogue.models.find((m) => m.type === 'asr');
  if (!model) return undefined;
  if (data.length > maxBytesOf(model)) throw new ApiError('PAYLOAD_TOO_LARGE', `An input_audio part is larger than ${sizeText(maxBytesOf(model))}`);
  if (data.length === 0) throw new ApiError('EMPTY_AUDIO', 'An input_audio part is empty');
  const raw = RAW_PCM[format];
  const kind = raw ? undefined : sniffMedia(data);
  if (!raw && !kind?.audio) throw new ApiError('UNSUPPORTED_FILE', `An input_audio part is not audio this server can read (${AUDIO_TYPES_TEXT})`);
  return inTempDir(async (dir) => {
    const input = path.join(dir, 'part');
    await fs.writeFile(input, data);
    const inputArgs = raw ?? ['-f', kind!.demuxer];
    const opts = { words: false, dir, maxSeconds: CHAT_AUDIO_MAX_SECONDS };
    return withDecoded(deps, ctx, model, { path: input, inputArgs }, opts, async (d) => (await d.transcribe()).text);
  });
}
