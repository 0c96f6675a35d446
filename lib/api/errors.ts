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
  // The crypto JSON-RPC proxy.
  RPC_NETWORK_NOT_SUPPORTED: [400, 'This network is not served by the JSON-RPC proxy'],
  RPC_METHOD_NOT_SUPPORTED: [400, 'The request calls JSON-RPC methods this network does not support'],
  IDEMPOTENCY_KEY_REUSED: [422, 'This Idempotency-Key was already used with a different request'],
  // Wallets (x402 payments and Sign-In-With-X).
  X402_SIGN_IN_MALFORMED: [400, 'The SIGN-IN-WITH-X header must be base64-encoded JSON'],
  PAYMENT_HEADER_NOT_ACCEPTED: [
    400,
    'Payment headers are only accepted by POST /api/v1/x402/top-up and, where x402 per request is on, by chat and image requests sent without other credentials',
  ],
  INVALID_PAYMENT_FORMAT: [400, 'The payment header must be base64-encoded x402 payment JSON'],
  UNSUPPORTED_SCHEME: [400, 'Only the x402 "exact" scheme is accepted'],
  UNSUPPORTED_NETWORK: [400, 'The payment is for a network this server does not accept'],
  UNSUPPORTED_TOKEN: [400, 'The payment is in a token this server does not accept'],
  INVALID_PAYMENT_RECIPIENT: [400, 'The payment is not addressed to this server'],
  INVALID_PAYMENT: [400, 'The payment does not match the payment requirements offered'],
  INVALID_AMOUNT: [400, 'The payment amount must be a whole number of token units'],
  AMOUNT_TOO_LOW: [400, 'The top-up amount is below the minimum of 5 USD'],
  AMOUNT_TOO_HIGH: [400, 'The top-up amount is above the maximum'],
  AUTHENTICATION_FAILED: [401, 'Authentication failed'],
  AUTHENTICATION_FAILED_INACTIVE_KEY: [401, 'Authentication failed: the API key is expired or revoked'],
  ADMIN_KEY_REQUIRED: [401, 'Admin API key required'],
  X402_SIGN_IN_INVALID_PAYLOAD: [401, 'The Sign-In-With-X payload is missing fields or has invalid ones'],
  X402_SIGN_IN_INVALID_MESSAGE: [401, 'The Sign-In-With-X message could not be parsed'],
  X402_SIGN_IN_ADDRESS_MISMATCH: [401, 'The Sign-In-With-X address does not match the signed message'],
  X402_SIGN_IN_UNSUPPORTED_CHAIN: [401, 'Sign-In-With-X is not accepted for this chain'],
  X402_SIGN_IN_CHAIN_MISMATCH: [401, 'The Sign-In-With-X chain does not match the signed message'],
  X402_SIGN_IN_DOMAIN_MISMATCH: [401, 'The Sign-In-With-X message was signed for another domain'],
  X402_SIGN_IN_EXPIRED: [401, 'The Sign-In-With-X message has expired'],
  X402_SIGN_IN_FUTURE_TIMESTAMP: [401, 'The Sign-In-With-X message is issued in the future'],
  X402_SIGN_IN_NOT_BEFORE: [401, 'The Sign-In-With-X message is not valid yet'],
  X402_SIGN_IN_TIMESTAMP_MISMATCH: [401, 'The Sign-In-With-X timestamp does not match the message'],
  X402_SIGN_IN_INVALID_SIGNATURE: [401, 'Invalid Sign-in-with-x signature'],
  X402_SIGN_IN_INVALID_NONCE: [401, 'The Sign-In-With-X nonce was not issued by this server or has expired'],
  X402_SIGN_IN_NONCE_REUSED: [401, 'The Sign-In-With-X nonce has already been used: sign a fresh challenge for every request'],
  INSUFFICIENT_BALANCE: [402, 'Insufficient USD or Diem balance to complete request.'],
  CREDIT_HELD: [402, 'Your balance is held by requests still running: this request fits once they finish. Retry shortly.'],
  API_KEY_USD_SPEND_LIMIT_EXCEEDED: [402, 'The API key has reached its USD consumption limit for this period'],
  API_KEY_DIEM_SPEND_LIMIT_EXCEEDED: [402, 'The API key has reached its DIEM consumption limit for this period'],
  TEAM_MEMBER_SPEND_LIMIT_EXCEEDED: [402, 'You have reached the spend cap your team set for you for this period'],
  AUTHENTICATION_REQUIRED: [402, 'Authentication required: send an API key (Authorization: Bearer) or a SIGN-IN-WITH-X header'],
  PAYMENT_REQUIRED: [402, 'Payment required'],
  PAYMENT_VERIFICATION_FAILED: [402, 'The payment could not be verified'],
  PAYMENT_AMOUNT_MISMATCH: [402, 'The payment is not for the price of this request'],
  SETTLEMENT_FAILED: [402, 'The payment could not be settled; nothing was charged or credited'],
  FORBIDDEN: [403, 'Forbidden'],
  X402_WALLET_MISMATCH: [403, 'You can only access your own wallet'],
  MODEL_PRIVACY_FORBIDDEN: [403, "This API key's modelPrivacy setting does not allow this model"],
  MODEL_NOT_ALLOWED_FOR_KEY: [403, "This model is not in the API key's list of models"],
  MODEL_NOT_ALLOWED_FOR_MEMBER: [403, 'This model is not on the list your team set for you'],
  NOT_FOUND: [404, 'Not found'],
  MODEL_NOT_FOUND: [404, 'Specified model not found'],
  CHARACTER_NOT_FOUND: [404, 'Specified character not found'],
  METHOD_NOT_ALLOWED: [405, 'Method not allowed'],
  ENDPOINT_RETIRED: [410, 'This endpoint has been retired'],
  PAYMENT_IN_PROGRESS: [409, 'This payment is being settled by another request'],
  PAYMENT_ALREADY_CREDITED: [409, 'This payment has already been credited'],
  IDEMPOTENCY_KEY_IN_PROGRESS: [409, 'A request with this Idempotency-Key is still running; retry it shortly'],
  IDEMPOTENCY_ANSWER_NOT_KEPT: [410, 'The answer to this Idempotency-Key was delivered once and is too large to keep for replays'],
  CONFLICT: [409, 'The request conflicts with what is already there'],
  CLIENT_TIMEOUT: [408, 'The request was not received in time'],
  PAYLOAD_TOO_LARGE: [413, 'The request body is too large'],
  INVALID_CONTENT_TYPE: [415, 'Invalid request content-type'],
  EMPTY_AUDIO: [422, 'The audio is empty: there is no sound to transcribe'],
  CONTENT_POLICY_VIOLATION: [422, 'The provider refused the request under its content policy'],
  RATE_LIMIT_EXCEEDED: [429, 'Rate limit exceeded'],
  TOO_MANY_JOBS: [429, 'Too many jobs queued or running at once'],
  REQUEST_HEADER_FIELDS_TOO_LARGE: [431, 'The request headers are too large'],
  TOO_MANY_FAILED_ATTEMPTS: [429, 'Too many failed attempts (> 20) resulting in a non-success status code. Please wait 30s and try again.'],
  INFERENCE_FAILED: [500, 'Inference processing failed'],
  UNKNOWN_ERROR: [500, 'An unexpected error occurred'],
  RPC_UPSTREAM_FAILED: [502, 'The blockchain node failed to answer'],
  MODEL_AT_CAPACITY: [503, 'The model is at capacity. Please try again later.'],
  ENGINE_UNAVAILABLE: [503, 'The engine of this model is not installed on this server'],
  ENGINE_DOWN: [503, 'The engine of this model is not reachable right now'],
  MEDIA_STORAGE_FULL: [503, 'Media storage is full; try again later'],
  X402_NOT_CONFIGURED: [503, 'Wallet top-ups are not configured on this server'],
  TOO_MANY_CONNECTIONS: [503, 'Too many open connections from this address'],
  RPC_UPSTREAM_UNAVAILABLE: [503, 'No blockchain node is available for this network right now'],
  REQUEST_TIMEOUT: [504, 'The request timed out. Use stream: true for long-running requests.'],
  RPC_UPSTREAM_TIMEOUT: [504, 'The blockchain node did not answer in time'],
  SETTLEMENT_TIMEOUT: [504, 'The payment was submitted but not confirmed in time; it is credited once it confirms (retry the same payment to check)'],
} as const satisfies Record<string, readonly [number, string]>;

export type ErrorCode = keyof typeof ERROR_CODES;

/** Extra fields merged into the body (e.g. `details`, `issues`, `param`). */
export type ErrorExtra = Record<string, unknown>;

export class ApiError extends Error {
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

export const isApiError = (e: unknown): e is ApiError => e instanceof ApiError;

/** Any thrown value as an ApiError; unknown failures become a 500 without leaking internals. */
export function toApiError(e: unknown): ApiError {
  if (isApiError(e)) return e;
  return new ApiError('UNKNOWN_ERROR');
}
