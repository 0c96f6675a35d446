// The account's rate limits and what is left of them now (GET /api/app/rate-limits).

/** One limit's budget now: the figure, what is left of it, and when the window refills (Unix ms). */
export interface RateMeter {
  limit: number;
  remaining: number;
  resetsAt: number;
}

export interface ModelRateLimits {
  modelId: string;
  name: string;
  /** The model's size class, which picks its figures. */
  sizeTier: string;
  requestsPerMinute: RateMeter;
  tokensPerMinute?: RateMeter;
  /** Requests per day, when the tier has a daily figure. */
  requestsPerDay?: number;
}

export interface RateLimitsReport {
  /** 'remote': limits are the external provider's, on the operator's key, and are not known here (models is empty). */
  mode: 'local' | 'remote';
  /** The account's rate-limit tier. */
  tier: 'default' | 'partner';
  /** The length of the "minute" window in seconds (60 in production). */
  windowSeconds: number;
  models: ModelRateLimits[];
}
