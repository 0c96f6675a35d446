// POST /video/quote, /video/queue, /video/retrieve, /video/complete: the job routes (lib/jobs/api-routes.ts) for the
// `video` kind (lib/video/kind.ts).
import { jobRoutes } from '../jobs/api-routes.ts';

export const video = jobRoutes('video');
