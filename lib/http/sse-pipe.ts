// A stream's steps → SSE on the response, with backpressure: the only loop that writes a stream's events (chat
// completions and Responses share it; lib/chat/sse.ts and lib/responses/sse.ts make the text).
import { baseHeaders, type HeaderMap } from '../api/headers.ts';
import type { RequestCtx } from './context.ts';
import { startSse, writeEvent } from './respond.ts';

/**
 * The headers a stream's head goes out without because their values come only after the work (`ctx.lateHeaders`: the
 * PAYMENT-RESPONSE of a payment settled after it, x402 `upto`). The head declares them as trailers (`Trailer:`, where
 * the answer is chunked: HTTP/1.1); once a value is set, it is written as an SSE comment line (`: payment-response
 * <value>`, which SSE readers, OpenAI's clients among them, skip) before the next event, so before the usage chunk and
 * `[DONE]`, and sent as a trailer when the stream ends.
 */
class LateHeaders {
  private readonly ctx: RequestCtx;
  private readonly names: string[];
  private readonly trailers: boolean;
  private readonly written = new Set<string>();

  constructor(ctx: RequestCtx, head: HeaderMap) {
    this.ctx = ctx;
    this.names = (ctx.lateHeaders ?? []).filter((n) => head[n] === undefined);
    // Node sends trailers only in a chunked answer, and refuses a declared Trailer in any other.
    this.trailers = this.names.length > 0 && ctx.req.httpVersion !== '1.0';
    if (this.trailers) head.Trailer = this.names.join(', ');
  }

  /** Comment lines for the values set since the last call ('' when none). */
  comments(): string {
    let text = '';
    for (const name of this.names) {
      const value = this.ctx.extraHeaders[name];
      if (value === undefined || this.written.has(name)) continue;
      this.written.add(name);
      text += `: ${name.toLowerCase()} ${value}\n\n`;
    }
    return text;
  }

  /** Before the end: the comments not yet written, and the trailers. */
  finish(): void {
    const res = this.ctx.res;
    if (!this.names.length || res.destroyed || res.writableEnded) return;
    const text = this.comments();
    if (text) res.write(text);
    if (!this.trailers) return;
    const values = Object.fromEntries(this.names.flatMap((n) => (this.ctx.extraHeaders[n] === undefined ? [] : [[n, this.ctx.extraHeaders[n]]])));
    res.addTrailers(values);
  }
}

/**
 * Relays SSE events made elsewhere (the E2EE worker's, which are signed as sent) unchanged, with backpressure and no
 * keep-alive comments of its own.
 */
export async function relaySse(ctx: RequestCtx, events: AsyncIterable<string>): Promise<void> {
  const head = { ...baseHeaders(ctx.headerCtx), ...ctx.extraHeaders };
  const late = new LateHeaders(ctx, head);
  startSse(ctx.res, head);
  ctx.res.flushHeaders();
  try {
    for await (const event of events) {
      if (ctx.res.destroyed) break;
      const drained = writeEvent(ctx.res, late.comments() + event);
      if (drained) await drained;
    }
  } finally {
    late.finish();
    ctx.res.end();
  }
}

/** Yields to the event loop: what was written this turn leaves (node:http sends a turn's writes together). */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Writes a stream's steps as SSE with backpressure (the headers go first). A reasoning model can think in silence
 * for a long time; a comment line keeps idle-timeout proxies from cutting the stream.
 *
 * Writes made in one event-loop turn leave together, so an upstream that sends many events in one packet is relayed
 * in one. The first step that carries output (`isOutput`) is the exception: the loop yields once after writing it,
 * so the first token leaves at once instead of after the rest of the packet's events and, for a short answer, the
 * settlement before the last one.
 */
export async function pipeSse<T>(ctx: RequestCtx, steps: AsyncIterable<T>, toText: (step: T) => string, isOutput: (step: T) => boolean): Promise<void> {
  const head = { ...baseHeaders(ctx.headerCtx), ...ctx.extraHeaders };
  const late = new LateHeaders(ctx, head);
  startSse(ctx.res, head);
  // The head goes out with the first event; if none is ready this turn, on its own, so the client hears 200 at once.
  let wrote = false;
  let outputSent = false;
  const flushHead = setImmediate(() => wrote || ctx.res.destroyed || ctx.res.flushHeaders());
  let lastWrite = Date.now();
  const keepAliveMs = ctx.svc.config.sseKeepAliveMs;
  const keepAlive = setInterval(
    () => {
      if (Date.now() - lastWrite < keepAliveMs || ctx.res.destroyed) return;
      ctx.res.write(': keep-alive\n\n');
      lastWrite = Date.now();
    },
    Math.max(10, Math.floor(keepAliveMs / 3)),
  );
  try {
    for await (const step of steps) {
      if (ctx.res.destroyed) break;
      const drained = writeEvent(ctx.res, late.comments() + toText(step));
      wrote = true;
      lastWrite = Date.now();
      if (drained) await drained;
      if (!outputSent && isOutput(step)) {
        outputSent = true;
        if (!drained) await nextTurn(); // a wait for the drain already let it leave
      }
    }
  } finally {
    clearImmediate(flushHead);
    clearInterval(keepAlive);
    late.finish();
    ctx.res.end();
  }
}
