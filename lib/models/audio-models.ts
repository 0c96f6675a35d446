// What a speech (tts) or transcription (asr) catalogue model declares beyond the common fields: its engine and its
// voices, formats and limits. Owned by the audio capability (lib/inference/audio); schema.ts joins these in.
import { z } from 'zod';

/** flite compiled to WASI, run in process off the event loop. */
const fliteEngine = z.strictObject({ kind: z.literal('flite') });

export const audioEngines = [fliteEngine] as const;

/** Voices, formats and limits of an audio model, listed by /models. */
export const audioSpec = z.strictObject({});
