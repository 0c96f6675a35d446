// What an image catalogue model declares beyond the common fields: its engine (one of the kinds below) and its limits.
// Owned by the images capability (lib/inference/images); schema.ts joins these into the catalogue format.
import { z } from 'zod';

/** The project's own demo generator: deterministic in prompt and seed, no weights; named as a demo in /models. */
const demoImageEngine = z.strictObject({ kind: z.literal('demo-image') });

export const imageEngines = [demoImageEngine] as const;

/** Limits and capabilities of an image model, listed by /models. */
export const imageSpec = z.strictObject({});
