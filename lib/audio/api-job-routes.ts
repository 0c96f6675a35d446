// POST /audio/quote, /audio/queue, /audio/retrieve, /audio/complete: the job routes (lib/jobs/api-routes.ts) for the
// `audio` kind (lib/audio/jobs.ts): long texts spoken into one file.
import { jobRoutes } from '../jobs/api-routes.ts';

export const audioJobs = jobRoutes('audio');
