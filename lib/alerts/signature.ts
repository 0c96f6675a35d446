// Webhook signatures in the Standard Webhooks layout (https://www.standardwebhooks.com), so a receiver can use any
// of its libraries or the recipe in docs/API.md: three headers, `webhook-id` (the delivery's event id, the same on
// every retry: dedupe on it), `webhook-timestamp` (Unix seconds when this attempt was signed) and
// `webhook-signature: v1,<base64 HMAC-SHA256>` over `<id>.<timestamp>.<body>` with the secret's key (the base64
// after `whsec_`). A receiver refuses a timestamp more than five minutes from its own clock, which stops a captured
// request being replayed later; within the window the id dedupes.
import crypto from 'node:crypto';

export const SECRET_PREFIX = 'whsec_';
/** How far a timestamp may be from the receiver's clock (seconds). */
export const TOLERANCE_SECONDS = 5 * 60;

/** A new signing secret: `whsec_` and 32 random bytes in base64. */
export function newWebhookSecret(): string {
  return SECRET_PREFIX + crypto.randomBytes(32).toString('base64');
}

function keyOf(secret: string): Buffer {
  if (!secret.startsWith(SECRET_PREFIX)) throw new Error('a webhook secret starts with whsec_');
  return Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
}

/** `v1,<base64>`: the signature of one attempt. */
export function signWebhook(secret: string, id: string, timestamp: number, body: string): string {
  const mac = crypto.createHmac('sha256', keyOf(secret)).update(`${id}.${timestamp}.${body}`).digest('base64');
  return `v1,${mac}`;
}

/** The headers of one attempt, signed now (`now`: ms). */
export function webhookHeaders(secret: string, id: string, body: string, now = Date.now()): Record<string, string> {
  const timestamp = Math.floor(now / 1000);
  return {
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signWebhook(secret, id, timestamp, body),
  };
}

export type VerifyResult = { ok: true } | { ok: false; reason: 'missing headers' | 'timestamp outside the window' | 'bad signature' };

/**
 * The receiver's check: the headers are present, the timestamp within `toleranceSeconds` of `now`, and one of the
 * signature header's space-separated `v1,` entries matches (compared in constant time).
 */
export function verifyWebhook(
  secret: string,
  headers: { id?: string | null; timestamp?: string | null; signature?: string | null },
  body: string,
  opts: { now?: number; toleranceSeconds?: number } = {},
): VerifyResult {
  const { id, timestamp, signature } = headers;
  if (!id || !timestamp || !signature || !/^\d+$/.test(timestamp)) return { ok: false, reason: 'missing headers' };
  const now = Math.floor((opts.now ?? Date.now()) / 1000);
  if (Math.abs(now - Number(timestamp)) > (opts.toleranceSeconds ?? TOLERANCE_SECONDS)) return { ok: false, reason: 'timestamp outside the window' };
  const expected = Buffer.from(signWebhook(secret, id, Number(timestamp), body));
  for (const given of signature.split(' ')) {
    const b = Buffer.from(given);
    if (b.length === expected.length && crypto.timingSafeEqual(b, expected)) return { ok: true };
  }
  return { ok: false, reason: 'bad signature' };
}
