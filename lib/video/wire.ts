// The video page's shapes (lib/video/app-routes.ts). The page acts through the user's own account, as the public
// /api/v1/video/* routes do for a key: the same validation, quote, hold, rate limits and bill.
//   GET    /api/app/video/models                          → VideoModelsReport
//   GET    /api/app/video/quote?model=&duration=&aspect_ratio=&resolution=&audio= → VideoQuote (nothing is held)
//   GET    /api/app/video/jobs                            → VideoJobsReport (the account's jobs, newest first)
//   POST   /api/app/video/jobs  VideoQueueRequest         → { job: AppVideoJob } (201): queued, the quote held
//   GET    /api/app/video/jobs/:id/media[?download=1]     → the clip (Range requests answered with 206)
//   DELETE /api/app/video/jobs/:id                        → 204: the clip deleted; a job still running is cancelled, its hold released

/** A video model as the page offers it: what it makes and what a second costs. */
export interface AppVideoModel {
  id: string;
  name: string;
  description: string | null;
  /** A demo engine that does not depict the prompt (the catalogue's `demo`): the page says so. */
  demo: boolean;
  /** The catalogue's default video model. */
  isDefault: boolean;
  perSecondUsd: number | null;
  durations: number[];
  defaultDuration: number;
  resolutions: string[];
  defaultResolution: string;
  aspectRatios: string[];
  defaultAspectRatio: string;
  /** Whether the model can add a soundtrack. */
  audio: boolean;
  promptCharacterLimit: number;
}

export interface VideoModelsReport {
  models: AppVideoModel[];
  /** Why this server makes no videos for the app (no video model, or the app's inference runs elsewhere); null when it does. */
  unavailable: string | null;
}

/** What the request would cost, in USD, from the code that holds and bills it. */
export interface VideoQuote {
  usd: number;
}

/** The queue body: the fields of POST /api/v1/video/queue the page sets (no references). */
export interface VideoQueueRequest {
  model: string;
  prompt: string;
  /** Whole seconds, one of the model's durations. */
  duration: number;
  aspect_ratio?: string;
  resolution?: string;
  audio?: boolean;
}

export type VideoJobStatus = 'queued' | 'running' | 'succeeded' | 'failed';

export interface AppVideoJob {
  id: string;
  model: string;
  /** The model's name (its id when it has left the catalogue). */
  modelName: string;
  status: VideoJobStatus;
  /** Unix ms. */
  createdAt: number;
  finishedAt: number | null;
  /** How long the running attempt has run, in ms (0 while queued): the progress bar's numerator. */
  executionDuration: number;
  /** What the model's recent jobs took (their 80th percentile, or the engine's estimate), in ms: the denominator. */
  averageExecutionTime: number;
  prompt: string;
  seconds: number;
  aspectRatio: string;
  resolution: string;
  width: number;
  height: number;
  audio: boolean;
  mediaType: string | null;
  mediaBytes: number | null;
  /** A failed job's reason; its hold was released (nothing was charged). */
  error: { code: string; message: string } | null;
  /** Where the finished clip plays from and downloads from (same origin, the session's cookie); null until it is done. */
  mediaUrl: string | null;
  downloadUrl: string | null;
}

export interface VideoJobsReport {
  jobs: AppVideoJob[];
  /** How long a finished job is kept (its clip then deleted), in ms from `finishedAt`. */
  retentionMs: number;
}
