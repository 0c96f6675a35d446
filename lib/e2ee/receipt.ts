// What the worker signs after an E2EE answer: the response signature clients fetch from /tee/signature (the hashes
// of the request body and of the response bytes, NEAR-style), and the token counts the gateway settles with.
export interface Receipt {
  /** The completion id (`chatcmpl-…`). */
  requestId: string;
  model: string;
  /** sha256(request body):sha256(response body), hex. */
  text: string;
  /** EIP-191 signature of `text` by the attested key. */
  signature: string;
  signing_address: string;
  request_hash: string;
  response_hash: string;
  timestamp: number;
}

export interface SignedUsage {
  prompt_tokens: number;
  completion_tokens: number;
  /** The signing key's address (the attested one the client sealed to). */
  address: string;
  signature: string;
}

/** The text the worker signs for the gateway's settlement. */
export const usageText = (requestId: string, u: { prompt_tokens: number; completion_tokens: number }): string =>
  `lagoon-e2ee-usage:${requestId}:${u.prompt_tokens}:${u.completion_tokens}`;

/** The most receipts a worker keeps (oldest dropped first): enough for a client to fetch one soon after its answer. */
export const MAX_RECEIPTS = 10_000;

/** The worker's trailer: an SSE comment the gateway removes (clients skip comments anyway), with the signed usage. */
export const TRAILER = ': lagoon-usage ';
