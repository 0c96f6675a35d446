// Header values built from data (a model's name, a file name, a deprecation note) are made safe here, in the one
// response class the server uses, so no route can send one that Node refuses: a value Node rejects throws
// ERR_INVALID_CHAR from writeHead, and an error answer that writes the same headers again threw outside any handler
// (issue 28). The response also remembers whether its head declared a whole body (content-length), which tells a
// buffered reply that did not go out in full from a stream that was cut (see guard.ts).
import { type IncomingMessage, ServerResponse } from 'node:http';

// Printable ASCII and tab: sent as they are.
const PLAIN = /^[\t\x20-\x7e]*$/;
// What Node's header check refuses: control characters (CR and LF among them) and anything above U+00FF.
const REFUSED = /[^\t\x20-\x7e\x80-\xff]/;

/**
 * A header value every client reads the same way. Printable ASCII passes unchanged. Anything else is sent
 * percent-encoded as UTF-8 (`ESRGAN slim (neural upscaler, 2%C3%97%E2%80%934%C3%97)`), `%` included, so
 * `decodeURIComponent` restores the text; control characters (CR, LF) become spaces first, so no value can split a
 * header. Latin-1 is encoded too: clients decode raw bytes above 0x7F as Latin-1 or UTF-8 as they please.
 */
export function safeHeaderValue(value: string): string {
  if (PLAIN.test(value)) return value;
  const flat = value.replace(/[\x00-\x08\x0a-\x1f\x7f]/g, ' ');
  let out = '';
  for (const ch of flat) {
    const code = ch.codePointAt(0) as number;
    const piece = (code >= 0x20 && code <= 0x7e && ch !== '%') || ch === '\t' ? ch : encodeChar(ch);
    // Encoding can grow a value ninefold; past the cap it is cut at a character and marked with an ellipsis, so a
    // 10 KB name never makes a head that clients refuse (Node's and browsers' limits are 8–16 KB in all).
    if (out.length + piece.length > MAX_ENCODED) return `${out}${ELLIPSIS}`;
    out += piece;
  }
  return out;
}

const MAX_ENCODED = 2048;
const ELLIPSIS = '%E2%80%A6';

/** A lone surrogate has no UTF-8 form: it is sent as U+FFFD. */
function encodeChar(ch: string): string {
  try {
    return encodeURIComponent(ch);
  } catch {
    return '%EF%BF%BD';
  }
}

type Value = number | string | readonly string[];

function safeValue(value: Value): Value {
  if (typeof value === 'number') return value;
  if (typeof value === 'string') return PLAIN.test(value) ? value : safeHeaderValue(value);
  return value.map((v) => (PLAIN.test(v) ? v : safeHeaderValue(String(v))));
}

/** Whether Node would refuse the value as it is (only values that are not printable ASCII need this check). */
export const refusedByNode = (value: string): boolean => REFUSED.test(value);

function safeHeaders(headers: unknown): unknown {
  if (!headers || typeof headers !== 'object') return headers;
  if (Array.isArray(headers)) {
    // [name, value, name, value, …] or [[name, value], …]
    return headers.map((h, i) =>
      Array.isArray(h) ? [h[0], safeValue(h[1] as Value)] : i % 2 === 1 && (typeof h === 'string' || typeof h === 'number') ? safeValue(h) : h,
    );
  }
  let copy: Record<string, unknown> | undefined;
  for (const [k, v] of Object.entries(headers)) {
    if (v === undefined || v === null) continue;
    const safe = safeValue(v as Value);
    if (safe !== v) (copy ??= { ...(headers as Record<string, unknown>) })[k] = safe;
  }
  return copy ?? headers;
}

function declaresLength(headers: unknown): boolean {
  if (!headers || typeof headers !== 'object' || Array.isArray(headers)) return false;
  for (const k of Object.keys(headers)) if (k.length === 14 && k.toLowerCase() === 'content-length') return true;
  return false;
}

export class SafeResponse<Request extends IncomingMessage = IncomingMessage> extends ServerResponse<Request> {
  /** True once the head declared the body's length: a whole reply rather than a stream. */
  wholeBody = false;

  override setHeader(name: string, value: Value): this {
    if (name.length === 14 && name.toLowerCase() === 'content-length') this.wholeBody = true;
    return super.setHeader(name, safeValue(value));
  }

  override appendHeader(name: string, value: string | readonly string[]): this {
    return super.appendHeader(name, safeValue(value) as string | readonly string[]);
  }

  // Node's overloads (status, [reason], [headers]) are passed through as they came.
  override writeHead(statusCode: number, ...rest: any[]): this {
    const last = rest.length - 1;
    if (last >= 0 && typeof rest[last] === 'object') {
      if (declaresLength(rest[last])) this.wholeBody = true;
      rest[last] = safeHeaders(rest[last]);
    }
    return super.writeHead(statusCode, ...(rest as []));
  }
}
