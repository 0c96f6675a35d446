// The `audio` job kind (lib/jobs): /audio/quote, /audio/queue, /audio/retrieve and /audio/complete, for texts too long
// for /audio/speech (an article, a chapter: up to LAGOON_AUDIO_QUEUE_MAX_CHARACTERS). A speech model's price is per
// 1,000 characters, so the quote, the hold and the bill are the text's characters at that price. The job speaks the
// text sentence by sentence into one file (speech-audio.ts `synthesizeToFile`), in mp3, wav or flac, the reference's
// retrieve types. An attempt that is taken over starts the text again: what an engine made lives only in its process.
import fs from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { ApiError } from '../api/errors.ts';
import { parseOrThrow } from '../api/validation.ts';
import { JobFailure, type JobKind } from '../jobs/types.ts';
import type { ModelEntry } from '../models/schema.ts';
import type { AdmissionQueue } from '../engines/queue.ts';
import { EngineError } from '../engines/text/types.ts';
import type { AudioEngines } from '../engines/audio/registry.ts';
import { CONTENT_TYPES, needsFfmpeg } from '../engines/audio/ffmpeg.ts';
import { MissingBinary, ProcessFailed, runProcess } from '../engines/audio/processes.ts';
import { characterCount } from '../engines/audio/sentences.ts';
import { voicesOf } from './speech.ts';
import { type SpeechProgress, synthesizeToFile } from './speech-audio.ts';
import { log } from '../log.ts';

/** What /audio/retrieve may answer (media-api.md §2): audio/mpeg, audio/wav or audio/flac. */
export const JOB_FORMATS = ['mp3', 'wav', 'flac'] as const;
export type JobFormat = (typeof JOB_FORMATS)[number];

/** What an audio job stores and its runner receives. */
export interface AudioRequest {
  input: string;
  characters: number;
  voice: string;
  speed: number;
  language?: string;
  format: JobFormat;
}

/** How far a job got, saved with it (its `state`) as it speaks. */
export interface AudioProgress {
  characters: number;
  pieces: number;
  totalPieces: number;
}

export interface AudioKindDeps {
  audio: Pick<AudioEngines, 'speech' | 'ffmpeg' | 'hasFfmpeg'>;
  /** The longest text one job speaks (LAGOON_AUDIO_QUEUE_MAX_CHARACTERS). */
  maxCharacters: number;
}

/** The reference's music fields: no speech model here takes them, so each is a 400 that names it. */
const MUSIC_FIELDS = ['lyrics_prompt', 'duration_seconds', 'force_instrumental', 'lyrics_optimizer', 'loop'] as const;
const music = Object.fromEntries(MUSIC_FIELDS.map((k) => [k, z.unknown().optional()])) as Record<(typeof MUSIC_FIELDS)[number], z.ZodOptional<z.ZodUnknown>>;

const text = z.string().min(1, 'the text to speak must not be empty');

const queueSchema = z.strictObject({
  model: z.string().min(1).max(256),
  /** The text to speak; `input` is accepted too, as on /audio/speech. */
  prompt: text.optional(),
  input: text.optional(),
  voice: z.string().min(1).max(512).optional(),
  speed: z.number().min(0.25, 'speed must be at least 0.25').max(4, 'speed must be at most 4').default(1),
  language_code: z.string().min(2).max(32).optional(),
  response_format: z.enum(JOB_FORMATS).optional(),
  ...music,
});

const quoteSchema = z.strictObject({
  model: z.string().min(1).max(256),
  character_count: z.number().int('character_count must be a whole number').positive('character_count must be more than 0').optional(),
  duration_seconds: z.unknown().optional(),
});

/** When sleeping between tries for an engine slot (the engine is busy with other requests). */
const SLOT_RETRY_MS = 1_000;
/** Progress is saved at most this often. */
const PROGRESS_EVERY_MS = 2_000;
/**
 * The time an attempt may take, per character of the longest text allowed. Measured here, flite with mp3 on a loaded
 * 2-core machine: 5,000 characters (6 minutes of speech) in 16-25 s, 20,000 (26 minutes) in 36 s, i.e. 2-5 ms a
 * character; an upstream on a CPU may be several times slower. Both with a wide margin.
 */
const MS_PER_CHARACTER = { flite: 20, upstream: 60 };
const BASE_TIMEOUT_MS = 10 * 60_000;

const invalid = (param: string, message: string) => new ApiError('INVALID_REQUEST', message, { param });

export function audioJobKind(deps: AudioKindDeps): JobKind<AudioRequest> {
  const max = deps.maxCharacters;

  /** The characters of a text, refused past the maximum (over twice as many UTF-16 units is too long without counting). */
  const measure = (s: string, param: string): number => {
    if (s.length > 2 * max) throw invalid(param, `${param} is over ${max} characters: a queued text takes at most ${max}`);
    const n = characterCount(s);
    if (n > max) throw invalid(param, `${param} is ${n} characters: a queued text takes at most ${max}`);
    return n;
  };

  return {
    name: 'audio',
    modelTypes: ['tts'],
    endpoint: '/audio/queue',
    unit: 'character',
    queuedFields: { status: 'QUEUED' },

    quote(body, model, wire) {
      const q = parseOrThrow(quoteSchema, body, wire);
      if (q.duration_seconds !== undefined) {
        throw invalid('duration_seconds', `Model ${model.id} is priced per 1,000 characters: quote with character_count, not duration_seconds`);
      }
      if (q.character_count === undefined) throw invalid('character_count', `character_count is required: model ${model.id} is priced per 1,000 characters`);
      if (q.character_count > max) throw invalid('character_count', `character_count is ${q.character_count}; a queued text takes at most ${max} characters`);
      return { characters: q.character_count };
    },

    validate(body, model, wire) {
      const q = parseOrThrow(queueSchema, body, wire);
      for (const k of MUSIC_FIELDS)
        if (q[k] !== undefined) throw invalid(k, `${k} is not supported by ${model.id}: it is a speech model, which says the prompt`);
      if (q.prompt !== undefined && q.input !== undefined) throw invalid('input', 'Give the text once: prompt or input (its other name), not both');
      const param = q.input !== undefined ? 'input' : 'prompt';
      const input = q.prompt ?? q.input;
      if (input === undefined) throw invalid('prompt', 'prompt is required: the text to speak');
      const characters = measure(input, param);
      const languages = model.audio?.languages;
      if (q.language_code !== undefined && languages && !languages.includes(q.language_code)) {
        throw invalid('language_code', `Model ${model.id} does not speak "${q.language_code}": language_code must be one of ${languages.join(', ')}`);
      }
      const request: AudioRequest = {
        input,
        characters,
        voice: voiceOf(model, q.voice),
        speed: q.speed,
        ...(q.language_code !== undefined ? { language: q.language_code } : {}),
        format: formatOf(model, q.response_format),
      };
      return { request, estimate: { characters } };
    },

    /** The engine is looked up here, before anything is held: missing programs are a 503, unsayable text a 400. */
    async prepare(prepared, model) {
      const { engine } = await deps.audio.speech(model);
      const r = prepared.request;
      const refusal = engine.refuses?.(r.input);
      if (refusal) throw invalid('prompt', `Model ${model.id} cannot say this text: ${refusal}`);
      if (needsFfmpeg(r.format) && !(await deps.audio.hasFfmpeg())) {
        throw new ApiError('ENGINE_UNAVAILABLE', `Model ${model.id} cannot answer in ${r.format} on this server: ffmpeg is not installed (wav needs none)`);
      }
      return prepared;
    },

    async run(job, ctx) {
      const r = job.request;
      let entry: Awaited<ReturnType<AudioKindDeps['audio']['speech']>>;
      let ffmpeg: string | undefined;
      try {
        entry = await deps.audio.speech(job.model);
        ffmpeg = needsFfmpeg(r.format) ? await deps.audio.ffmpeg(job.model) : undefined;
      } catch (e) {
        throw new JobFailure('failed', e instanceof ApiError ? e.message : `Model ${job.model.id} is unavailable`);
      }
      const release = await slot(entry.queue, ctx.signal);
      try {
        const outPath = path.join(ctx.workDir, `speech.${r.format}`);
        const spoken = r.format === 'flac' ? path.join(ctx.workDir, 'streamed.flac') : outPath;
        let saved = 0;
        const onProgress = (p: SpeechProgress) => {
          if (Date.now() - saved < PROGRESS_EVERY_MS) return;
          saved = Date.now();
          const state: AudioProgress = { characters: p.characters, pieces: p.pieces, totalPieces: p.totalPieces };
          ctx.checkpoint(state).catch(() => {}); // progress is informative: a failed save is not the job's failure
        };
        const voice = { voice: r.voice, speed: r.speed, language: r.language, signal: ctx.signal };
        const made = await synthesizeToFile({ engine: entry.engine, ffmpeg, input: r.input, format: r.format, voice, outPath: spoken, onProgress });
        if (spoken !== outPath) await withLength(ffmpeg ?? 'ffmpeg', spoken, outPath, ctx.signal);
        // Billed on what was spoken: every character, once the whole text is in the file.
        return { file: outPath, contentType: CONTENT_TYPES[r.format], quantities: { characters: made.characters } };
      } catch (e) {
        throw ctx.signal.aborted ? ctx.signal.reason : failureOf(e);
      } finally {
        release();
      }
    },

    timeoutMs(model) {
      return BASE_TIMEOUT_MS + max * (model.engine.kind === 'flite' ? MS_PER_CHARACTER.flite : MS_PER_CHARACTER.upstream);
    },

    expectedMs(model, req) {
      // Measured here: flite about 3-5 ms a character (mp3 included); an upstream is guessed slower.
      return model.engine.kind === 'flite' ? 1_000 + req.characters * 4 : 5_000 + req.characters * 20;
    },

    // The spec has one Audio class (60/min): retrieve and complete count against it apart from queue (their own counter).
    retrieveLimits: (limits) => limits,
  };
}

/** The voice asked for (or the model's default), by name or alias; one the model does not have is a 400. */
function voiceOf(model: ModelEntry, asked: string | undefined): string {
  const voices = voicesOf(model);
  if (asked === undefined) {
    const fallback = model.audio?.default_voice ?? voices?.[0];
    if (!fallback) throw invalid('voice', `voice is required for model ${model.id}`);
    return fallback;
  }
  const aliases = model.audio?.voice_aliases ?? {};
  const voice = Object.hasOwn(aliases, asked) ? aliases[asked] : asked;
  if (voices && !voices.includes(voice)) throw invalid('voice', `Voice "${asked}" is not a voice of model ${model.id}. Voices: ${voices.join(', ')}`);
  return voice;
}

/** mp3 unless asked otherwise (or the model's default, when it is a job format); it must be one the model makes. */
function formatOf(model: ModelEntry, asked: JobFormat | undefined): JobFormat {
  const supported = (model.audio?.supported_formats ?? JOB_FORMATS).filter((f): f is JobFormat => (JOB_FORMATS as readonly string[]).includes(f));
  const preferred = model.audio?.default_format;
  const format = asked ?? (supported.includes('mp3') ? 'mp3' : (supported.find((f) => f === preferred) ?? supported[0]));
  if (!format || !supported.includes(format)) {
    const offered = supported.length ? `one of ${supported.join(', ')}` : 'none: this model makes no mp3, wav or flac';
    throw invalid('response_format', `Model ${model.id} does not make ${format ?? 'mp3, wav or flac'} for a queued text: response_format must be ${offered}`);
  }
  return format;
}

/**
 * FLAC encoded through a pipe has no length in its header (ffmpeg cannot seek back to write it), so players and probes
 * see no duration: encoded again into a file, it has. Lossless, and hundreds of times faster than real time.
 */
async function withLength(ffmpeg: string, input: string, output: string, signal: AbortSignal): Promise<void> {
  await runProcess(ffmpeg, ['-nostdin', '-hide_banner', '-loglevel', 'error', '-i', input, '-c:a', 'flac', '-f', 'flac', '-y', output], { signal });
  await fs.rm(input, { force: true });
}

/** A slot of the engine's admission queue, waiting for one as long as the job may (a job waits its turn; a request 503s). */
async function slot(queue: AdmissionQueue, signal: AbortSignal): Promise<() => void> {
  for (;;) {
    try {
      return await queue.acquire(signal);
    } catch (e) {
      if (signal.aborted) throw signal.reason;
      if (!(e instanceof EngineError && e.kind === 'capacity')) throw e;
      await sleep(SLOT_RETRY_MS, undefined, { signal }).catch(() => {});
    }
  }
}

/** An engine's or a program's failure as the client hears it on retrieve (always refunded). */
function failureOf(e: unknown): unknown {
  if (e instanceof MissingBinary) return new JobFailure('failed', `Speech is unavailable on this server: ${e.message}`);
  if (e instanceof ProcessFailed) log.error({ reason: e.message }, 'audio job: encoding failed');
  if (e instanceof EngineError && e.kind === 'bad_request') return new JobFailure('failed', `The speech engine rejected the text: ${e.message}`);
  if (e instanceof EngineError) return new JobFailure('failed', `The speech engine failed (${e.kind}); nothing was charged`);
  if (e instanceof ApiError) return new JobFailure('failed', e.message);
  return e;
}
