// POST /video/quote, /video/queue, /video/retrieve, /video/complete: the job routes (lib/http/routes/jobs.ts) for the
// `video` kind (lib/inference/video/kind.ts).
import { jobRoutes } from './jobs.ts';

export const video = jobRoutes('video');
