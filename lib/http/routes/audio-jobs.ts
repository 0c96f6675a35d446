// POST /audio/quote, /audio/queue, /audio/retrieve, /audio/complete: the job routes (lib/http/routes/jobs.ts) for the
// `audio` kind (lib/inference/audio/jobs.ts): long texts spoken into one file.
import { jobRoutes } from './jobs.ts';

export const audioJobs = jobRoutes('audio');
