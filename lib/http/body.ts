// Request body reading for both APIs: JSON only (415 otherwise), bounded in size, parse errors as 400.
import type { IncomingMessage } from 'node:http';
import { ApiError } from '../api/errors.ts';
import { OFF_LOOP_JSON_BYTES, parseJsonOffLoop } from '../json/off-loop.ts';
import { readShared } from '../json/shared-bytes.ts';

export function isJsonContentType(header: string | undefined): boolean {
  if (!header) return false;
  const type = header.split(';')[0].trim().toLowerCase();
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}

export async function readJson(req: IncomingMessage, maxBytes: number): Promise<unknown> {
  return (await readJsonWithBytes(req, maxBytes)).value;
}

/** The JSON body and the bytes it came as (an E2EE request is signed over exactly those). */
export async function readJsonWithBytes(req: IncomingMessage, maxBytes: number): Promise<{ value: unknown; bytes: Buffer }> {
  if (!isJsonContentType(req.headers['content-type'])) {
    throw new ApiError('INVALID_CONTENT_TYPE', `Invalid request content-type: expected application/json, got ${req.headers['content-type'] ?? 'none'}`);
  }
  const declared = Number(req.headers['content-length']);
  if (declared > maxBytes) throw tooLarge(maxBytes);
  const bytes = await readBody(req, maxBytes);
  return { value: await parseJsonBytes(bytes), bytes };
}

/** parseJsonText of UTF-8 bytes, in a thread from OFF_LOOP_JSON_BYTES on. */
export async function parseJsonBytes(bytes: Uint8Array): Promise<unknown> {
  if (bytes.byteLength < OFF_LOOP_JSON_BYTES) return parseJsonText(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'));
  try {
    return await parseJsonOffLoop(bytes);
  } catch (e) {
    throw new ApiError('INVALID_JSON', `The request body is not valid JSON: ${(e as Error).message}`);
  }
}

/** The body text as JSON: an empty body and a syntax error are 400s that say which. Shared by both APIs. */
export function parseJsonText(text: string): unknown {
  if (!text.trim()) throw new ApiError('INVALID_JSON', 'The request body is empty');
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new ApiError('INVALID_JSON', `The request body is not valid JSON: ${(e as Error).message}`);
  }
}

export const tooLarge = (maxBytes: number) => new ApiError('PAYLOAD_TOO_LARGE', `The request body is larger than ${sizeText(maxBytes)}`);
const sizeText = (bytes: number) => (bytes >= 1048576 ? `${Math.floor(bytes / 1048576)} MB` : `${Math.floor(bytes / 1024)} KB`);

/** Whether a content-length body's bytes are all in the stream's buffer. */
function arrived(req: IncomingMessage): boolean {
  const declared = req.headers['content-length'];
  return declared !== undefined && req.headers['transfer-encoding'] === undefined && req.readableLength === Number(declared);
}

/** Bodies read before their handler (an Idempotency-Key request hashes its body first): the handler gets the same bytes. */
const preread = new WeakMap<IncomingMessage, Buffer>();

export function setPrereadBody(req: IncomingMessage, body: Buffer): void {
  preread.set(req, body);
}

/** The raw body, refused with 413 past maxBytes. Plain 'data'/'end' events: cheaper than the stream's async iterator. */
export function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const early = preread.get(req);
  if (early) return early.length > maxBytes ? Promise.reject(tooLarge(maxBytes)) : Promise.resolve(early);
  // A body whose bytes have all arrived (most have by the time a handler reads them, after authentication) is taken
  // from the stream's buffer at once, without the ticks and events of flowing mode and the parser's end of message.
  if (!req.readableFlowing && !req.readableEnded && (req.complete || arrived(req))) {
    const body: Buffer = req.read() ?? Buffer.alloc(0);
    return body.length > maxBytes ? Promise.reject(tooLarge(maxBytes)) : Promise.resolve(body);
  }
  const declared = req.headers['transfer-encoding'] === undefined ? Number(req.headers['content-length']) : Number.NaN;
  if (declared >= OFF_LOOP_JSON_BYTES && declared <= maxBytes && isJsonContentType(req.headers['content-type'])) return readShared(req, declared);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        req.removeAllListeners('data');
        req.resume();
        reject(tooLarge(maxBytes));
      } else chunks.push(chunk);
    });
    req.once('end', () => resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)));
    req.once('error', reject);
  });
}
