// A stream's steps → SSE on the response, with backpressure: the only loop that writes a stream's events (chat
// completions and Responses share it; lib/chat/sse.ts and lib/responses/sse.ts make the text).
import { baseHeaders } from '../api/headers.ts';
import type { RequestCtx } from './context.ts';
import { startSse, writeEvent } from './respond.ts';

/**
 * Relays SSE events made elsewhere (the E2EE worker's, which are signed as sent) unchanged, with backpressure and no
 * keep-alive comments of its own.
 */
export async function relaySse(ctx: RequestCtx, events: AsyncIterable<string>): Promise<void> {
  startSse(ctx.res, { ...baseHeaders(ctx.headerCtx), ...ctx.extraHeaders });
  ctx.res.flushHeaders();
  try {
    for await (const event of events) {
      if (ctx.res.destroyed) break;
      const drained = writeEvent(ctx.res, event);
      if (drained) await drained;
    }
  } finally {
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
  startSse(ctx.res, { ...baseHeaders(ctx.headerCtx), ...ctx.extraHeaders });
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
      const drained = writeEvent(ctx.res, toText(step));
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
    ctx.res.end();
  }
}
