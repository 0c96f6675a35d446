// The x-ratelimit-* response headers (spec "Response headers"), lowercase, values as strings.

/** Requests: the limit, what is left, and the Unix time in seconds when the window resets. */
export function requestHeaders(limit: number, remaining: number, resetAtMs: number): Record<string, string> {
  return {
    'x-ratelimit-limit-requests': String(limit),
    'x-ratelimit-remaining-requests': String(Math.max(0, remaining)),
    'x-ratelimit-reset-requests': String(Math.ceil(resetAtMs / 1000)),
  };
}

/** Tokens: the limit, what is left, and the seconds until the token window resets (unlike requests, a delay). */
export function tokenHeaders(limit: number, remaining: number, resetInMs: number): Record<string, string> {
  return {
    'x-ratelimit-limit-tokens': String(limit),
    'x-ratelimit-remaining-tokens': String(Math.max(0, remaining)),
    'x-ratelimit-reset-tokens': String(secondsUntil(resetInMs)),
  };
}

/** Whole seconds, at least 1, so a client that waits this long finds the window reset. */
export function secondsUntil(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}
