// POST /audio/speech, framework-free, on the metered call in characters: validate → the tts model, its voice and
// format → hold the input's characters → admission to the engine → speech (speech-audio.ts) → settle. A buffered
// answer is billed whole once made, and a failure releases the hold. A stream (`streaming`) answers once its first
// audio exists (so a failure before any audio is still a plain HTTP error), sends each sentence as it is made, and
// bills every character once its last sentence is made — or, cut off midway, the characters of the sentences made.
import { ApiError } from '../api/errors.ts';
import { parseOrThrow } from '../api/validation.ts';
import type { Amount } from '../billing/money.ts';
import { DEFAULT_MAX_SPEECH_CHARACTERS, SPEECH_FORMATS, type SpeechFormat } from '../models/audio-models.ts';
import { resolveModel } from '../models/catalogue.ts';
import type { ModelEntry } from '../models/schema.ts';
import { type CallContext, type CallMeta, engineFailure } from '../engines/call.ts';
import { type Meter, openMeter } from '../billing/metered.ts';
import { FLITE_VOICES } from '../engines/audio/flite/pool.ts';
import { CONTENT_TYPES, needsFfmpeg } from '../engines/audio/ffmpeg.ts';
import { MissingBinary, ProcessFailed } from '../engines/audio/processes.ts';
import { type SpeechRequest, speechRequestSchema } from './schema.ts';
import { characterCount } from '../engines/audio/sentences.ts';
import { type SpeechProgress, speechAudio } from './speech-audio.ts';
import type { AudioDeps } from './transcription.ts';
import { log } from '../log.ts';

export type SpeechResult =
  | { kind: 'bytes'; meta: CallMeta; contentType: string; body: Buffer; charged: Amount }
  /** The first audio exists; the rest follows as it is made. */
  | { kind: 'stream'; meta: CallMeta; contentType: string; chunks: AsyncIterable<Buffer> };

/** The tts model a request names (default: the catalogue's default tts model); another type is a 400. */
export function speechModel(deps: Pick<AudioDeps, 'catalogue'>, name: string | undefined): ModelEntry {
  const model = resolveModel(deps.catalogue, name ?? 'default', 'tts');
  if (model.type !== 'tts') throw new ApiError('INVALID_MODEL', `Model ${model.id} is a ${model.type} model, not a speech (tts) model`, { param: 'model' });
  return model;
}

/** The voices a model speaks: its catalogue list, flite's own, or none listed (an upstream judges the name itself). */
export function voicesOf(model: ModelEntry): readonly string[] | undefined {
  return model.audio?.voices ?? (model.engine.kind === 'flite' ? FLITE_VOICES : undefined);
}

function voiceOf(model: ModelEntry, asked: SpeechRequest['voice']): string {
  const voices = voicesOf(model);
  const name = typeof asked === 'object' ? asked.id : asked;
  if (name === undefined) {
    const fallback = model.audio?.default_voice ?? voices?.[0];
    if (!fallback) throw new ApiError('INVALID_REQUEST', `voice is required for model ${model.id}`, { param: 'voice' });
    return fallback;
  }
  const aliases = model.audio?.voice_aliases ?? {};
  const voice = Object.hasOwn(aliases, name) ? aliases[name] : name;
  if (voices && !voices.includes(voice)) {
    const cloned = /^vv_/.test(name) ? ' (cloned voices are not available: no model on this server clones voices)' : '';
    throw new ApiError('INVALID_REQUEST', `Voice "${name}" is not a voice of model ${model.id}${cloned}. Voices: ${voices.join(', ')}`, { param: 'voice' });
  }
  return voice;
}

function formatOf(model: ModelEntry, asked: SpeechFormat | undefined): SpeechFormat {
  const supported = model.audio?.supported_formats ?? SPEECH_FORMATS;
  const format = asked ?? model.audio?.default_format ?? (supported.includes('mp3') ? 'mp3' : supported[0]);
  if (!supported.includes(format)) {
    throw new ApiError('INVALID_REQUEST', `Model ${model.id} does not answer in ${format}: response_format must be one of ${supported.join(', ')}`, {
      param: 'response_format',
    });
  }
  return format;
}

/** Engine and process failures as wire errors (a missing program is the server's 503, not the caller's fault). */
function speechFailure(model: ModelEntry, requestId: string, e: unknown): ApiError {
  if (e instanceof ApiError) return e;
  if (e instanceof MissingBinary) return new ApiError('ENGINE_UNAVAILABLE', `Model ${model.id} is unavailable on this server: ${e.message}`);
  if (e instanceof ProcessFailed) log.error({ reason: e.message }, `[${requestId}] speech with ${model.id} failed`);
  return engineFailure(e);
}

export async function runSpeech(deps: AudioDeps, ctx: CallContext, rawBody: unknown): Promise<SpeechResult> {
  if (!rawBody || typeof rawBody !== 'object' || Array.isArray(rawBody)) throw new ApiError('INVALID_REQUEST', 'The request body must be a JSON object');
  const req = parseOrThrow(speechRequestSchema, rawBody, deps.wire);
  const model = speechModel(deps, req.model);
  const characters = characterCount(req.input);
  const maxCharacters = model.audio?.max_characters ?? DEFAULT_MAX_SPEECH_CHARACTERS;
  if (characters > maxCharacters) {
    throw new ApiError('INVALID_REQUEST', `input is ${characters} characters; model ${model.id} takes at most ${maxCharacters}`, { param: 'input' });
  }
  const voice = voiceOf(model, req.voice);
  const format = formatOf(model, req.response_format);
  if (req.stream_format === 'sse')
    throw new ApiError('INVALID_REQUEST', 'stream_format "sse" is not offered: use "audio" (or streaming: true)', { param: 'stream_format' });
  const prompt = req.prompt ?? req.instructions;
  if (prompt !== undefined && !model.audio?.prompt) {
    throw new ApiError('INVALID_REQUEST', `Model ${model.id} does not take a style prompt: leave out ${req.prompt !== undefined ? 'prompt' : 'instructions'}`, {
      param: req.prompt !== undefined ? 'prompt' : 'instructions',
    });
  }
  const streaming = req.streaming || req.stream_format === 'audio';
  const { engine, queue } = await deps.audio.speech(model);
  const refusal = engine.refuses?.(req.input);
  if (refusal) throw new ApiError('INVALID_REQUEST', `Model ${model.id} cannot say this input: ${refusal}`, { param: 'input' });
  let ffmpeg: string | undefined;
  if (!engine.speak && needsFfmpeg(format)) {
    if (!(await deps.audio.hasFfmpeg())) {
      throw new ApiError('ENGINE_UNAVAILABLE', `Model ${model.id} cannot answer in ${format} on this server: ffmpeg is not installed (wav and pcm need none)`);
    }
    ffmpeg = await deps.audio.ffmpeg(model);
  }

  const meter = await openMeter(deps, ctx, { model, endpoint: '/audio/speech', unit: 'character', estimate: { characters } });
  let release: () => void;
  try {
    release = await queue.acquire(ctx.signal);
  } catch (e) {
    meter.release();
    throw engineFailure(e);
  }
  const meta: CallMeta = { model, router: engine.router, balancesBefore: meter.before, hold: meter.hold };
  const contentType = CONTENT_TYPES[format];
  const progress: SpeechProgress = { characters: 0, pieces: 0, totalPieces: 0 };
  const common = { engine, ffmpeg, input: req.input, format, progress, voice: { voice, speed: req.speed, language: req.language, prompt, signal: ctx.signal } };

  if (!streaming) {
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of await speechAudio({ ...common, streaming: false })) chunks.push(chunk);
      const charged = meter.settle({ characters });
      await meter.recorded();
      return { kind: 'bytes', meta, contentType, body: Buffer.concat(chunks), charged };
    } catch (e) {
      meter.release();
      throw speechFailure(model, ctx.requestId, e);
    } finally {
      release();
    }
  }

  // A stream settles whole before its last bytes are made; cut off, it bills the sentences made (finishStream).
  const settleWhole = async () => {
    meter.settle({ characters });
    await meter.recorded();
  };
  let audio: AsyncIterator<Buffer>;
  // Up to the first audio: an encoder's header bytes come before it, and a failure until then is a plain HTTP error.
  const head: Buffer[] = [];
  let done = false;
  try {
    audio = (await speechAudio({ ...common, streaming: true, beforeEnd: settleWhole }))[Symbol.asyncIterator]();
    while (!progress.audible) {
      const r = await audio.next();
      if (r.done) {
        done = true;
        break;
      }
      head.push(r.value);
    }
  } catch (e) {
    meter.release();
    release();
    throw speechFailure(model, ctx.requestId, e);
  }
  const fail = (e: unknown) => speechFailure(model, ctx.requestId, e);
  return { kind: 'stream', meta, contentType, chunks: rest(head, done, audio, fail, () => finishStream(meter, progress, release)) };
}

/** The stream from its first audio on; a failure midway ends it as an ApiError (the HTTP layer cuts the response). */
async function* rest(head: Buffer[], done: boolean, audio: AsyncIterator<Buffer>, fail: (e: unknown) => ApiError, finish: () => void): AsyncGenerator<Buffer> {
  try {
    if (head.length) yield Buffer.concat(head);
    if (done) return;
    for (let r = await audio.next(); !r.done; r = await audio.next()) yield r.value;
  } catch (e) {
    throw fail(e);
  } finally {
    await audio.return?.().catch(() => {});
    finish();
  }
}

/** A stream that ended early bills the characters of the sentences it made, or nothing when it made none. */
function finishStream(meter: Meter, progress: SpeechProgress, release: () => void): void {
  if (meter.open) {
    if (progress.characters > 0) meter.settle({ characters: progress.characters });
    else meter.release();
  }
  release();
}
