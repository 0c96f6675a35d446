// What a /api/v1 handler answers, and the one writer that sends it (with the request's base headers, the headers the
// metered call set, compression for JSON and backpressure for streams). Handlers build a Reply; only this file and
// the writers it calls touch the response.
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ApiError } from '../api/errors.ts';
import { baseHeaders, type HeaderMap } from '../api/headers.ts';
import type { RequestCtx } from './context.ts';
import { fail, failWithBody, ok, okText } from './send.ts';
import { stringifyAndHashOffLoop } from '../json/off-loop.ts';
import { writeEvent } from './respond.ts';
import { pipeSse, relaySse } from './sse-pipe.ts';

export type Reply =
  /**
   * `text`: the body already serialised (by whoever hashed it), sent as it is; `bytes` and their `sha256`: a body of
   * megabytes written and hashed in the JSON thread (jsonOffLoop).
   */
  | { kind: 'json'; status: number; body: unknown; text?: string; bytes?: Uint8Array; sha256?: string }
  /** A body as it is (bytes or text; none for a 304), with its own content headers. */
  | { kind: 'raw'; status: number; headers: HeaderMap; body?: Uint8Array | string }
  /** Bytes as they are made (speech, sentence by sentence), with backpressure; the head leaves at once. */
  | { kind: 'chunks'; headers: HeaderMap; chunks: AsyncIterable<Uint8Array> }
  /** A file streamed with backpressure; `onSent` runs once all of it left (a client gone midway skips it). */
  | { kind: 'file'; headers: HeaderMap; stream: Readable; onSent?: () => Promise<void> }
  /** A stream's steps as SSE (lib/http/sse-pipe.ts#pipeSse). */
  | { kind: 'events'; steps: AsyncIterable<unknown>; toText: (step: unknown) => string; isOutput: (step: unknown) => boolean }
  /** SSE events made elsewhere, relayed byte for byte (the E2EE worker's). */
  | { kind: 'relay'; events: AsyncIterable<string> }
  /** An error in a body of the route's own layout (a public document that fixes one). */
  | { kind: 'error'; err: ApiError; body?: Record<string, unknown> };

export const json = (body: unknown, status = 200): Reply => ({ kind: 'json', status, body });

/**
 * A JSON answer of megabytes (thousands of embeddings), written and hashed in the JSON thread and compressed in the
 * thread pool: on the event loop, 2,048 vectors of 3,072 floats took two seconds from every other request.
 */
export const jsonOffLoop = async (body: unknown, status = 200): Promise<Reply> => ({
  kind: 'json',
  status,
  body: undefined,
  ...(await stringifyAndHashOffLoop(body)),
});
export const raw = (headers: HeaderMap, body?: Uint8Array | string, status = 200): Reply => ({ kind: 'raw', status, headers, body });
export const events = <T>(steps: AsyncIterable<T>, toText: (step: T) => string, isOutput: (step: T) => boolean): Reply => ({
  kind: 'events',
  steps,
  toText: toText as (step: unknown) => string,
  isOutput: isOutput as (step: unknown) => boolean,
});

/** Sends a handler's reply. */
export async function sendReply(ctx: RequestCtx, r: Reply): Promise<void> {
  switch (r.kind) {
    case 'json': {
      const written = r.bytes ?? r.text;
      return written !== undefined ? okText(ctx, written, r.status) : ok(ctx, r.body, r.status);
    }
    case 'raw':
      ctx.res.writeHead(r.status, { ...baseHeaders(ctx.headerCtx), ...ctx.extraHeaders, ...r.headers });
      ctx.res.end(ctx.req.method === 'HEAD' ? undefined : r.body);
      return;
    case 'chunks': {
      const { res } = ctx;
      res.writeHead(200, { ...baseHeaders(ctx.headerCtx), ...ctx.extraHeaders, ...r.headers });
      res.flushHeaders();
      try {
        for await (const chunk of r.chunks) {
          if (res.destroyed) break;
          const drained = writeEvent(res, chunk);
          if (drained) await drained;
        }
      } finally {
        res.end();
      }
      return;
    }
    case 'file':
      ctx.res.writeHead(200, { ...baseHeaders(ctx.headerCtx), ...ctx.extraHeaders, ...r.headers });
      try {
        await pipeline(r.stream, ctx.res);
      } catch {
        return; // the client went away: what was not delivered is not marked sent
      }
      await r.onSent?.();
      return;
    case 'events':
      return pipeSse(ctx, r.steps, r.toText, r.isOutput);
    case 'relay':
      return relaySse(ctx, r.events);
    case 'error':
      return r.body ? failWithBody(ctx, r.err, r.body) : fail(ctx, r.err);
  }
}
