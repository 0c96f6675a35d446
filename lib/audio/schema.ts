// Wire schemas of the audio endpoints (media-api.md §2, §3), strict: an unknown field is a 400 naming it. Speech takes
// the public API's fields and OpenAI's (`instructions`, `stream_format`, a `{id}` voice), so the `openai` client's
// audio.speech.create works unchanged; transcription fields come from a multipart form, as strings.
import { z } from 'zod';
import { SPEECH_FORMATS, TRANSCRIPTION_TIMESTAMPS } from '../models/audio-models.ts';
import { characterCount } from '../engines/audio/sentences.ts';

export const MAX_SPEECH_INPUT = 4096;

export const speechRequestSchema = z.strictObject({
  input: z
    .string({ error: (i) => (i.input === undefined ? 'input is required' : 'input must be a string') })
    .min(1, 'input must not be empty')
    .refine((s) => characterCount(s) <= MAX_SPEECH_INPUT, `input must be at most ${MAX_SPEECH_INPUT} characters`),
  model: z.string().min(1).max(256).optional(),
  voice: z.union([z.string().min(1).max(512), z.strictObject({ id: z.string().min(1).max(512) })]).optional(),
  response_format: z.enum(SPEECH_FORMATS).optional(),
  speed: z.number().min(0.25, 'speed must be at least 0.25').max(4, 'speed must be at most 4').default(1),
  streaming: z.boolean().default(false),
  /** OpenAI's: `audio` is the plain stream; server-sent events are not offered. */
  stream_format: z.enum(['audio', 'sse']).optional(),
  language: z.string().min(2).max(32).optional(),
  prompt: z.string().max(500).optional(),
  /** OpenAI's name for `prompt`. */
  instructions: z.string().max(4096).optional(),
  temperature: z.number().min(0).max(2).optional(),
  top_p: z.number().min(0).max(1).optional(),
});

export type SpeechRequest = z.infer<typeof speechRequestSchema>;

const flag = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');

export const TRANSCRIPTION_FORMATS = ['json', 'text', 'verbose_json', 'srt', 'vtt'] as const;

/** The form fields of POST /audio/transcriptions (the file comes apart); repeated fields arrive as arrays. */
export const transcriptionFieldsSchema = z.strictObject({
  model: z.string().min(1).max(256).optional(),
  response_format: z.enum(TRANSCRIPTION_FORMATS).default('json'),
  /** The public API's switch: word and segment times in the json answer. */
  timestamps: flag.optional(),
  /** OpenAI's: which times verbose_json (and json, here) carries. */
  timestamp_granularities: z.array(z.enum(TRANSCRIPTION_TIMESTAMPS)).max(2).optional(),
  language: z.string().min(2).max(32).optional(),
  prompt: z.string().max(4096).optional(),
  temperature: z.coerce.number().min(0).max(1).optional(),
  /** OpenAI's streamed transcription is not offered; `false` is accepted. */
  stream: flag.optional(),
});

export type TranscriptionFields = z.infer<typeof transcriptionFieldsSchema>;

export const videoTranscriptionSchema = z.strictObject({
  url: z.string({ error: (i) => (i.input === undefined ? 'url is required' : 'url must be a string') }).url('url must be an http(s) URL'),
  response_format: z.enum(['json', 'text']).default('json'),
  /** Which transcription model (default: the catalogue's default asr model). */
  model: z.string().min(1).max(256).optional(),
  language: z.string().min(2).max(32).optional(),
});

export const voiceCloneFieldsSchema = z.strictObject({
  model: z.string().min(1).max(256).optional(),
  name: z.string().max(256).optional(),
});
