// Read-aloud and dictation in the chat (shapes: lib/audio/wire.ts). The signed-in user acts through the principal
// of the account's server-held browser key, so a read-aloud is POST /api/v1/audio/speech for that account and a
// dictation POST /api/v1/audio/transcriptions: the same pipelines (lib/audio), validation, per-model rate
// limits, hold and bill (per 1,000 characters; per started second). Speech answers audio/mpeg as each sentence is
// made, so the browser starts playing the first sentence while the rest are synthesised; any refusal (402, 429, a bad
// voice) comes before the first byte, as a JSON error the page can put into words.
import { z } from 'zod';
import { ApiError } from '../api/errors.ts';
import { fromMicros } from '../billing/money.ts';
import { characterCount } from '../engines/audio/sentences.ts';
import { runSpeech, voicesOf } from './speech.ts';
import { type AudioDeps, runTranscription } from './transcription.ts';
import { DEFAULT_MAX_AUDIO_BYTES, DEFAULT_MAX_AUDIO_SECONDS, DEFAULT_MAX_SPEECH_CHARACTERS } from '../models/audio-models.ts';
import type { Catalogue } from '../models/catalogue.ts';
import type { ModelEntry } from '../models/schema.ts';
import { principalForUser, type User } from '../users/users.ts';
import type { AppDeps } from '../http/app-deps.ts';
import { appRoute, json, readBytes } from '../http/app-route.ts';
import type { AudioOptions, DictationOptions, DictationResult, SpeechOptions } from './wire.ts';
import { isRemote } from '../catalogue/sources.ts';
import { log } from '../log.ts';

const SPEECH_BODY_LIMIT = 64 * 1024;
const MIN_SPEED = 0.5;
const MAX_SPEED = 2;

/** Flite's voices in words; awb_time is left out of the picker: it is a talking clock that says little but times. */
const VOICE_LABELS: Record<string, string> = {
  slt: 'slt — US English, female',
  rms: 'rms — US English, male',
  awb: 'awb — Scottish English, male',
  kal16: 'kal16 — US English, male (diphone)',
  kal: 'kal — US English, male (diphone, 8 kHz)',
};
const HIDDEN_VOICES = new Set(['awb_time']);

// Request ids in the API layer's shape (24 hex characters, time first).

/** The catalogue's default model of a type, else its first one. */
export const defaultOfType = (cat: Catalogue, type: 'tts' | 'asr'): ModelEntry | undefined =>
  cat.models.find((m) => m.type === type && m.traits.includes('default')) ?? cat.models.find((m) => m.type === type);

function speechOptions(m: ModelEntry): SpeechOptions {
  const listed = (voicesOf(m) ?? []).filter((v) => !HIDDEN_VOICES.has(v));
  const defaultVoice = m.audio?.default_voice ?? listed[0] ?? '';
  const voices = listed.length ? listed : defaultVoice ? [defaultVoice] : [];
  return {
    model: m.id,
    modelName: m.name,
    voices: voices.map((id) => ({ id, label: VOICE_LABELS[id] ?? id })),
    defaultVoice,
    minSpeed: MIN_SPEED,
    maxSpeed: MAX_SPEED,
    maxCharacters: m.audio?.max_characters ?? DEFAULT_MAX_SPEECH_CHARACTERS,
    per1kCharactersUsd: m.pricing.per_1k_characters_usd ?? null,
  };
}

function dictationOptions(m: ModelEntry): DictationOptions {
  return {
    model: m.id,
    maxBytes: m.audio?.max_file_bytes ?? DEFAULT_MAX_AUDIO_BYTES,
    maxSeconds: m.audio?.max_duration_seconds ?? DEFAULT_MAX_AUDIO_SECONDS,
    perSecondUsd: m.pricing.per_second_usd ?? null,
  };
}

// The length limit is the speech model's, which the operator may change while the server runs: checked per request.
const speechBody = z.strictObject({
  text: z
    .string({ error: (i) => (i.input === undefined ? 'text is required' : 'text must be a string') })
    .refine((s) => s.trim().length > 0, 'text is empty: there is nothing to read aloud'),
  voice: z.string().min(1).max(100).optional(),
  speed: z.number().min(MIN_SPEED, `speed must be at least ${MIN_SPEED}`).max(MAX_SPEED, `speed must be at most ${MAX_SPEED}`).optional(),
});

/** Dictation arrives as the recording itself; these are the types a browser's MediaRecorder (or a file) declares. */
const RECORDING_TYPE = /^(audio\/[a-z0-9.+-]+|video\/webm|video\/mp4|video\/ogg|application\/octet-stream)$/;

/** A speech stream as a Web stream: pulled as the socket drains; a client that goes away ends the synthesis. */
function audioStream(chunks: AsyncIterable<Buffer>, signal: AbortSignal): ReadableStream<Uint8Array> {
  const it = chunks[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const r = await it.next();
          if (r.done) controller.close();
          else controller.enqueue(new Uint8Array(r.value.buffer, r.value.byteOffset, r.value.byteLength));
        } catch (e) {
          // Cut off midway: the sentences made are billed (speech.ts), and the response simply ends here. A listener
          // who stopped is no failure worth a log line.
          if (!signal.aborted) log.error({ reason: (e as Error).message }, 'read-aloud stream failed');
          controller.error(e);
        }
      },
      async cancel() {
        await it.return?.(undefined);
      },
    },
    { highWaterMark: 0 },
  );
}

export function audioRoutes(deps: AppDeps) {
  const { svc } = deps;
  const audioDeps: AudioDeps = { ...svc.chatDeps, audio: svc.audio };
  const remote = isRemote(deps);
  const tts = () => defaultOfType(svc.catalogue, 'tts');
  const asr = () => defaultOfType(svc.catalogue, 'asr');

  /** Why `what` cannot be offered here, or null. */
  const unavailable = (what: 'speech' | 'dictation'): string | null => {
    if (remote)
      return "Read-aloud and dictation are not available in this app: its answers come from an external API, and speech is made by this server's own engines.";
    if (what === 'speech' && !tts())
      return 'This server offers no speech model, so answers cannot be read aloud: its operator adds one to the model catalogue.';
    if (what === 'dictation' && !asr()) return 'This server offers no transcription model, so dictation is off: its operator adds one to the model catalogue.';
    return null;
  };
  const refuse = (what: 'speech' | 'dictation') => {
    const why = unavailable(what);
    if (why) throw new ApiError('NOT_FOUND', why);
  };

  const callFor = async (user: User, { requestId, signal }: { requestId: string; signal: AbortSignal }) => ({
    principal: await principalForUser(svc.store, user),
    requestId,
    signal,
    responseHeaders: {} as Record<string, string>,
  });

  return {
    audioOptions: appRoute(deps, 'session', async () => {
      const speech = unavailable('speech') ? null : speechOptions(tts()!);
      const dictation = unavailable('dictation') ? null : dictationOptions(asr()!);
      const body: AudioOptions = { speech, dictation, unavailable: unavailable('speech') ?? unavailable('dictation') };
      return json(body, 200, { 'cache-control': 'private, max-age=300' });
    }),

    audioSpeech: appRoute(
      deps,
      { auth: 'session+csrf', body: speechBody, bodyLimit: SPEECH_BODY_LIMIT },
      async ({ req, requestId, session: { user }, body }) => {
        refuse('speech');
        const model = tts()!;
        const maxCharacters = model.audio?.max_characters ?? DEFAULT_MAX_SPEECH_CHARACTERS;
        if (characterCount(body.text) > maxCharacters)
          throw new ApiError('INVALID_REQUEST', `text: text is longer than ${maxCharacters} characters: send it in pieces`, { param: 'text' });
        const call = await callFor(user, { requestId, signal: req.signal });
        const input = { model: model.id, input: body.text, voice: body.voice, speed: body.speed ?? 1, response_format: 'mp3', streaming: true };
        const result = await runSpeech(audioDeps, call, input);
        const headers = { 'content-type': result.contentType, 'cache-control': 'no-store', 'x-accel-buffering': 'no' };
        if (result.kind === 'bytes') return new Response(new Uint8Array(result.body), { status: 200, headers });
        return new Response(audioStream(result.chunks, req.signal), { status: 200, headers });
      },
    ),

    audioDictation: appRoute(deps, 'session+csrf', async ({ req, requestId, session: { user } }) => {
      refuse('dictation');
      const model = asr()!;
      const type = (req.headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
      if (!RECORDING_TYPE.test(type)) {
        throw new ApiError('INVALID_CONTENT_TYPE', `Invalid request content-type: expected the recording (audio/*), got ${type || 'none'}`);
      }
      const limits = dictationOptions(model);
      const bytes = await readBytes(req, limits.maxBytes);
      const call = await callFor(user, { requestId, signal: req.signal });
      const result = await runTranscription(audioDeps, call, { model: model.id, response_format: 'json' }, { bytes, contentType: type, filename: 'dictation' });
      const value = result.body.kind === 'json' ? result.body.value : { text: result.body.text };
      const seconds = typeof value.duration === 'number' ? Math.ceil(value.duration) : 0;
      const out: DictationResult = { text: String(value.text ?? '').trim(), seconds, costUsd: fromMicros(result.charged.usd) };
      return json(out);
    }),
  };
}
