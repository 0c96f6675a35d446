// What a speech (tts) or transcription (asr) catalogue model declares beyond the common fields: its engine and its
// voices, formats and limits. Owned by the audio capability (lib/audio); schema.ts joins these in.
import { z } from 'zod';

/** The formats /audio/speech can answer in (the public API's list). */
export const SPEECH_FORMATS = ['mp3', 'opus', 'aac', 'flac', 'wav', 'pcm'] as const;
export type SpeechFormat = (typeof SPEECH_FORMATS)[number];

/** What an upload for transcription may be, by its content (not its name). */
export const TRANSCRIPTION_TIMESTAMPS = ['word', 'segment'] as const;

/** The public API's upload limit for transcription (413 beyond it). */
export const DEFAULT_MAX_AUDIO_BYTES = 25 * 1024 * 1024;
export const DEFAULT_MAX_AUDIO_SECONDS = 1800;
export const DEFAULT_MAX_SPEECH_CHARACTERS = 4096;

// Admission to an engine, as for the text upstreams: at most maxConcurrency requests run, maxQueue wait (each at
// most queueTimeoutMs), beyond that 503 with Retry-After.
const admission = {
  maxConcurrency: z.number().int().positive().optional(),
  maxQueue: z.number().int().nonnegative().optional(),
  queueTimeoutMs: z.number().int().positive().optional(),
};

/** flite compiled to WASI, run in worker threads (node:wasi): speech, offline. */
const fliteEngine = z.strictObject({
  kind: z.literal('flite'),
  /** Worker threads running flite, each with the module compiled once (default 1). */
  workers: z.number().int().positive().max(32).optional(),
  ...admission,
});

/** CMU PocketSphinx (`pocketsphinx_continuous`, Debian's package) as a child process per request: transcription. */
const pocketsphinxEngine = z.strictObject({
  kind: z.literal('pocketsphinx'),
  /** Acoustic model directory, language model and dictionary; default: the package's US English model. */
  hmm: z.string().min(1).optional(),
  lm: z.string().min(1).optional(),
  dict: z.string().min(1).optional(),
  ...admission,
});

/** An OpenAI audio API upstream (Kokoro-FastAPI, speaches, whisper.cpp's server, vLLM, LocalAI): /v1/audio/*. */
const openaiAudioEngine = z.strictObject({
  kind: z.literal('openai-audio'),
  /** The base URL, with its /v1 (as for the text upstreams). */
  baseUrl: z.string().url(),
  /** The upstream's model name; defaults to the catalogue id. */
  model: z.string().optional(),
  /** Name of the environment variable holding the upstream's API key (never the key itself). */
  apiKeyEnv: z.string().optional(),
  /** Time allowed until the upstream sends response headers (default 60 s). */
  timeoutMs: z.number().int().positive().optional(),
  /** Sample rate of the upstream's `pcm` (OpenAI's: 24 kHz), used when long texts are synthesised piece by piece. */
  pcmSampleRate: z.number().int().positive().optional(),
  ...admission,
});

export const audioEngines = [fliteEngine, pocketsphinxEngine, openaiAudioEngine] as const;

/** Voices, formats and limits of an audio model, listed by /models. Speech fields and transcription fields. */
export const audioSpec = z
  .strictObject({
    /** Speech: the voices (an upstream without a list takes any voice name and judges it itself). */
    voices: z.array(z.string().min(1).max(512)).min(1).optional(),
    default_voice: z.string().min(1).optional(),
    /** Speech: other names for voices (e.g. OpenAI's `alloy`), so clients written for another API work unchanged. */
    voice_aliases: z.record(z.string().min(1), z.string().min(1)).optional(),
    supported_formats: z.array(z.enum(SPEECH_FORMATS)).min(1).optional(),
    default_format: z.enum(SPEECH_FORMATS).optional(),
    /** Speech: the longest input in characters (at most the API's 4,096). */
    max_characters: z.number().int().positive().max(DEFAULT_MAX_SPEECH_CHARACTERS).optional(),
    /** Speech: whether `prompt` (style, emotion) is honoured. */
    prompt: z.boolean().optional(),
    /** ISO-639-1 codes the model speaks or understands. */
    languages: z.array(z.string().min(2).max(32)).optional(),
    /** Transcription: the largest upload and the longest audio accepted. */
    max_file_bytes: z.number().int().positive().optional(),
    max_duration_seconds: z.number().int().positive().optional(),
    /** Transcription: the timestamp granularities it can give. */
    timestamps: z.array(z.enum(TRANSCRIPTION_TIMESTAMPS)).optional(),
  })
  .superRefine((a, c) => {
    if (a.default_voice && a.voices && !a.voices.includes(a.default_voice)) {
      c.addIssue({ code: 'custom', path: ['default_voice'], message: `default_voice "${a.default_voice}" is not one of voices` });
    }
    if (a.default_format && a.supported_formats && !a.supported_formats.includes(a.default_format)) {
      c.addIssue({ code: 'custom', path: ['default_format'], message: `default_format "${a.default_format}" is not one of supported_formats` });
    }
    for (const [alias, voice] of Object.entries(a.voice_aliases ?? {})) {
      if (a.voices && !a.voices.includes(voice)) c.addIssue({ code: 'custom', path: ['voice_aliases', alias], message: `"${voice}" is not one of voices` });
    }
  });

export type AudioSpec = z.infer<typeof audioSpec>;

/**
 * The /models `model_spec` fields of a tts or asr model, after the common ones (wire.ts): its voices, formats and
 * limits, and its unit price added to the common `pricing` (`per_thousand_characters` or `per_second`).
 */
export function audioWireSpec(
  m: {
    type: string;
    engine: { kind: string };
    audio?: AudioSpec;
    pricing: { per_1k_characters_usd?: number; per_1k_characters_diem?: number; per_second_usd?: number; per_second_diem?: number };
  },
  pricing: Record<string, unknown>,
): Record<string, unknown> {
  const a = m.audio ?? {};
  const source = m.engine.kind === 'openai-audio' ? 'openai-compatible' : m.engine.kind;
  const usdDiem = (usd: number | undefined, diem: number | undefined) => (usd === undefined ? undefined : { usd, diem: diem ?? usd });
  if (m.type === 'tts') {
    return {
      modelSource: source,
      voices: a.voices ?? null,
      defaultVoice: a.default_voice ?? a.voices?.[0] ?? null,
      voiceAliases: a.voice_aliases ?? {},
      supported_formats: a.supported_formats ?? [...SPEECH_FORMATS],
      default_format: a.default_format ?? 'mp3',
      maxCharacters: a.max_characters ?? DEFAULT_MAX_SPEECH_CHARACTERS,
      languages: a.languages ?? null,
      supportsStreaming: true,
      // Long texts as jobs: /audio/queue (lib/audio/jobs.ts) serves every speech model.
      supportsQueueing: true,
      supportsPromptParam: a.prompt ?? false,
      supportsVoiceCloning: false,
      pricing: { ...pricing, per_thousand_characters: usdDiem(m.pricing.per_1k_characters_usd, m.pricing.per_1k_characters_diem) },
    };
  }
  return {
    modelSource: source,
    languages: a.languages ?? null,
    maxFileBytes: a.max_file_bytes ?? DEFAULT_MAX_AUDIO_BYTES,
    maxDurationSeconds: a.max_duration_seconds ?? DEFAULT_MAX_AUDIO_SECONDS,
    timestamps: a.timestamps ?? [],
    pricing: { ...pricing, per_second: usdDiem(m.pricing.per_second_usd, m.pricing.per_second_diem) },
  };
}

/** The engine kinds that serve each audio model type (lib/engines/audio/registry.ts makes them). */
export const AUDIO_ENGINE_KINDS = { tts: ['flite', 'openai-audio'], asr: ['pocketsphinx', 'openai-audio'] } as const;

/**
 * Why a model's type and engine do not go together, when one of them is audio (a tts model on a text engine, a
 * pocketsphinx engine on a tts model); undefined when they do or neither is audio. Checked when the catalogue loads,
 * so the mistake stops the start with the field named instead of failing every request.
 */
export function audioEngineProblem(m: { id: string; type: string; engine: { kind: string } }): string | undefined {
  const kind = m.engine.kind;
  const wanted: readonly string[] | undefined = m.type === 'tts' || m.type === 'asr' ? AUDIO_ENGINE_KINDS[m.type] : undefined;
  if (wanted) return wanted.includes(kind) ? undefined : `model "${m.id}" (${m.type}) needs an engine of kind ${wanted.join(' or ')}, not ${kind}`;
  const serves = (Object.keys(AUDIO_ENGINE_KINDS) as (keyof typeof AUDIO_ENGINE_KINDS)[]).filter((t) =>
    (AUDIO_ENGINE_KINDS[t] as readonly string[]).includes(kind),
  );
  return serves.length ? `model "${m.id}": a ${kind} engine serves models of type ${serves.join(' or ')}, not ${m.type}` : undefined;
}
