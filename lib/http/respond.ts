// Writing responses: JSON (gzip or br when the client accepts it), errors in the one body layout, and SSE.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { promisify } from 'node:util';
import { brotliCompress, brotliCompressSync, constants, gzip, gzipSync } from 'node:zlib';
import type { ApiError } from '../api/errors.ts';
import type { HeaderMap } from '../api/headers.ts';

// Below this size compression costs more time than it saves on the wire.
const MIN_COMPRESS_BYTES = 1024;
// From this size an answer is compressed in the thread pool: on the loop, 30 MB of JSON took a second from everyone.
const ASYNC_COMPRESS_BYTES = 256 * 1024;
const BROTLI = { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } };
const GZIP = { level: 5 };
const brotliAsync = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

function pickEncoding(accept: string | undefined): 'br' | 'gzip' | undefined {
  if (!accept) return undefined;
  const offered = accept
    .toLowerCase()
    .split(',')
    .map((s) => s.trim().split(';'));
  const ok = (name: string) => offered.some(([n, q]) => n === name && !/q=0(\.0*)?$/.test(q ?? ''));
  if (ok('br')) return 'br';
  if (ok('gzip')) return 'gzip';
  return undefined;
}

export function sendJson(req: IncomingMessage, res: ServerResponse, status: number, body: unknown, headers: HeaderMap = {}): void | Promise<void> {
  return sendJsonText(req, res, status, JSON.stringify(body), { ...headers, 'content-type': 'application/json; charset=utf-8' });
}

/**
 * A JSON answer, as text or as its UTF-8 bytes (written in the JSON thread), compressed when it is large enough and
 * the client accepts br or gzip. `out` is the head's headers, content-type included; this adds the length and
 * encoding to it. A large answer is compressed off the event loop: the promise settles once it is written.
 */
export function sendJsonText(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  body: string | Uint8Array,
  out: Record<string, string | string[]>,
): void | Promise<void> {
  // A string's length bounds its byte length from below: short bodies skip the encoding check without a byte count.
  const size = typeof body === 'string' ? body.length : body.byteLength;
  const encoding = size >= MIN_COMPRESS_BYTES ? pickEncoding(req.headers['accept-encoding']) : undefined;
  // A string body leaves in the same write as the head (Node joins them); a Buffer would take a writev and a copy.
  if (!encoding) return writeWhole(res, status, body, out);
  if (size >= ASYNC_COMPRESS_BYTES) return sendCompressed(res, status, body, encoding, out);
  writeWhole(res, status, encoding === 'br' ? brotliCompressSync(body, BROTLI) : gzipSync(body, GZIP), out, encoding);
}

/** The head, with the body's length (and its encoding), then the body. */
function writeWhole(res: ServerResponse, status: number, body: string | Uint8Array, out: Record<string, string | string[]>, encoding?: 'br' | 'gzip'): void {
  if (encoding) {
    out['content-encoding'] = encoding;
    out.vary = 'accept-encoding';
  }
  out['content-length'] = String(Buffer.byteLength(body));
  res.writeHead(status, out);
  res.end(body);
}

async function sendCompressed(res: ServerResponse, status: number, body: string | Uint8Array, encoding: 'br' | 'gzip', out: Record<string, string | string[]>) {
  let payload: Buffer | undefined;
  try {
    payload = await (encoding === 'br' ? brotliAsync(body, BROTLI) : gzipAsync(body, GZIP));
  } catch {
    // zlib failing (out of memory) costs the compression, not the answer.
  }
  try {
    writeWhole(res, status, payload ?? body, out, payload ? encoding : undefined);
  } catch {
    // Nobody awaits an error body's write: a head that cannot be written ends the connection, never the process.
    res.destroy();
  }
}

export function sendError(req: IncomingMessage, res: ServerResponse, err: ApiError, headers: HeaderMap = {}): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  sendJson(req, res, err.status, err.toBody(), { ...headers, ...err.headers });
}

/**
 * Sets the stream's head. It leaves with the first event, in one write (a flush of its own would cost a syscall and
 * a packet per stream); the caller flushes it when no event is at hand.
 */
export function startSse(res: ServerResponse, headers: HeaderMap): void {
  res.writeHead(200, { ...headers, ...SSE_HEADERS, connection: 'keep-alive' });
}

/** The head of every event stream both APIs send: never cached or transformed, never buffered by a proxy. */
export const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-transform',
  'x-accel-buffering': 'no',
} as const;

/** Writes one event; resolves once the socket can take more (backpressure). */
export function writeEvent(res: ServerResponse, data: string | Uint8Array): Promise<void> | undefined {
  if (res.write(data)) return undefined;
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}
