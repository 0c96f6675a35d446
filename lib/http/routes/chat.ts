// POST /chat/completions: parse, run the pipeline, write JSON or the stream's events as SSE (sse-chat.ts).
import { balanceHeaders, baseHeaders, modelHeaders } from '../../api/headers.ts';
import { runChat } from '../../inference/chat/pipeline.ts';
import { jsonBody, principalOf, type RequestCtx, setBalanceRemaining, withWalletCredit } from '../context.ts';
import { startSse, writeEvent } from '../respond.ts';
import { chatSseEvent } from '../sse-chat.ts';
import { ok } from '../send.ts';

/** Whether the request carries the E2EE key headers (`x-service-tee-client-pub-key`, …, in the wire's prefix). */
export const hasE2eeHeaders = (ctx: RequestCtx): boolean => Object.keys(ctx.req.headers).some((h) => h.startsWith(`${ctx.headerCtx.wire.headerPrefix}tee-`));

export async function chatCompletions(ctx: RequestCtx): Promise<void> {
  const principal = principalOf(ctx);
  const body = await jsonBody(ctx);
  const { svc } = ctx;
  const chatCtx = { principal, requestId: ctx.requestId, signal: ctx.signal, responseHeaders: ctx.extraHeaders, e2eeHeaders: hasE2eeHeaders(ctx) };
  const result = await withWalletCredit(ctx, () => runChat(svc.chatDeps, chatCtx, body));
  const { balancesBefore: before, hold } = result.meta;
  Object.assign(ctx.extraHeaders, modelHeaders(ctx.headerCtx, result.meta.model, result.meta.router), balanceHeaders(ctx.headerCtx, before));
  // A stream's headers leave before its cost is known: they count its hold, the most it can cost.
  setBalanceRemaining(ctx, before.usd - before.usdHeld - (result.kind === 'json' ? result.charged.usd : hold.usd));
  if (result.kind === 'json') return ok(ctx, result.body);

  const { head } = result;
  await pipeSse(ctx, result.events, (step) => chatSseEvent(head, step));
}

/**
 * Writes a stream's steps as SSE with backpressure (the headers go first). A reasoning model can think in silence
 * for a long time; a comment line keeps idle-timeout proxies from cutting the stream.
 */
export async function pipeSse<T>(ctx: RequestCtx, steps: AsyncIterable<T>, toText: (step: T) => string): Promise<void> {
  startSse(ctx.res, { ...baseHeaders(ctx.headerCtx), ...ctx.extraHeaders });
  // The head goes out with the first event; if none is ready this turn, on its own, so the client hears 200 at once.
  let wrote = false;
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
    }
  } finally {
    clearImmediate(flushHead);
    clearInterval(keepAlive);
    ctx.res.end();
  }
}
