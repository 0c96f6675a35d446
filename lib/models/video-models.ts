// What a video catalogue model declares beyond the common fields: its engine and its durations, resolutions and
// aspect ratios. Owned by the video capability (lib/inference/video); schema.ts joins these in.
import { z } from 'zod';

/** The project's own demo video engine: frames from the prompt and seed, encoded by ffmpeg; named as a demo. */
const demoVideoEngine = z.strictObject({ kind: z.literal('demo-video') });

export const videoEngines = [demoVideoEngine] as const;

/** Durations, resolutions and aspect ratios of a video model, listed by /models. */
export const videoSpec = z.strictObject({});
