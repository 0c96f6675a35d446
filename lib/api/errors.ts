// The one error type of the service. Every failure that reaches a client is an ApiError; its code fixes the
// HTTP status and the default message, so handlers never pick status numbers themselves.

export const ERROR_CODES = {
  INVALID_REQUEST: [400, 'Invalid request parameters'],
  INVALID_MODEL: [400, 'The model cannot take this request'],
  UNSUPPORTED_CONTENT: [400, 'The model does not support this content type'],
  CORRUPTED_FILE: [400, 'The file could not be read'],
  UNSUPPORTED_FILE: [400, 'Unsupported file type'],
  FILE_TOO_LARGE: [400, 'The file is too large'],
  INVALID_JSON: [400, 'The request body is not valid JSON'],
  CONTEXT_LENGTH_EXCEEDED: [400, "Your request exceeds the model's maximum context. Please reduce your prompt or completion length."],
  AUTHENTICATION_FAILED: [401, 'Authentication failed'],
  AUTHENTICATION_FAILED_INACTIVE_KEY: [401, 'Authentication failed: the API key is expired or revoked'],
  ADMIN_KEY_REQUIRED: [401, 'Admin API key required'],
  INSUFFICIENT_BALANCE: [402, 'Insufficient USD or Diem balance to complete request.'],
  API_KEY_USD_SPEND_LIMIT_EXCEEDED: [402, 'The API key has reached its USD consumption limit for this period'],
  API_KEY_DIEM_SPEND_LIMIT_EXCEEDED: [402, 'The API key has reached its DIEM consumption limit for this period'],
  FORBIDDEN: [403, 'Forbidden'],
  NOT_FOUND: [404, 'Not found'],
  MODEL_NOT_FOUND: [404, 'Specified model not found'],
  CHARACTER_NOT_FOUND: [404, 'Specified character not found'],
  METHOD_NOT_ALLOWED: [405, 'Method not allowed'],
  PAYLOAD_TOO_LARGE: [413, 'The request body is too large'],
  INVALID_CONTENT_TYPE: [415, 'Invalid request content-type'],
  RATE_LIMIT_EXCEEDED: [429, 'Rate limit exceeded'],
  TOO_MANY_FAILED_ATTEMPTS: [429, 'Too many failed attempts (> 20) resulting in a non-success status code. Please wait 30s and try again.'],
  INFERENCE_FAILED: [500, 'Inference processing failed'],
  UNKNOWN_ERROR: [500, 'An unexpected error occurred'],
  MODEL_AT_CAPACITY: [503, 'The model is at capacity. Please try again later.'],
  REQUEST_TIMEOUT: [504, 'The request timed out. Use stream: true for long-running requests.'],
} as const satisfies Record<string, readonly [number, string]>;

export type ErrorCode = keyof typeof ERROR_CODES;

/** Extra fields merged into the body (e.g. `details`, `issues`, `param`). */
export type ErrorExtra = Record<string, unknown>;

// A brand instead of `instanceof` alone: Next bundles its own copy of this module for the app's route handlers, and
// errors thrown by the server's copy must still be recognised there.
const BRAND = Symbol.for('lagoon.ApiError');

export class ApiError extends Error {
  readonly [BRAND] = true;
  readonly code: ErrorCode;
  readonly status: number;
  readonly extra: ErrorExtra | undefined;
  readonly headers: Record<string, string> | undefined;

  constructor(code: ErrorCode, message?: string, extra?: ErrorExtra, headers?: Record<string, string>) {
    const [status, fallback] = ERROR_CODES[code];
    super(message ?? fallback);
    this.code = code;
    this.status = status;
    this.extra = extra;
    this.headers = headers;
  }

  /** The wire body: `{ error: <message>, code: <CODE>, ...extra }`. */
  toBody(): Record<string, unknown> {
    return { error: this.message, code: this.code, ...this.extra };
  }
}

export const isApiError = (e: unknown): e is ApiError =>
  e instanceof ApiError || (typeof e === 'object' && e !== null && (e as Record<symbol, unknown>)[BRAND] === true);

/** Any thrown value as an ApiError; unknown failures become a 500 without leaking internals. */
export function toApiError(e: unknown): ApiError {
  if (isApiError(e)) return e;
  return new ApiError('UNKNOWN_ERROR');
}
