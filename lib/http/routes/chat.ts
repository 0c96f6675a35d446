// POST /chat/completions: parse, run the pipeline, write JSON or the stream's events as SSE (sse-chat.ts).
import { balanceHeaders, baseHeaders, modelHeaders } from '../../api/headers.ts';
import { runChat } from '../../inference/chat/pipeline.ts';
import { jsonBody, principalOf, type RequestCtx, setBalanceRemaining, withWalletCredit } from '../context.ts';
import { startSse, writeEvent } from '../respond.ts';
import { chatSseEvent } from '../sse-chat.ts';
import { ok } from '../send.ts';

export async function chatCompletions(ctx: RequestCtx): Promise<void> {
  const principal = principalOf(ctx);
  const body = await jsonBody(ctx);
  const { svc } = ctx;
  const result = await withWalletCredit(ctx, () =>
    runChat(svc.chatDeps, { principal, requestId: ctx.requestId, signal: ctx.signal, responseHeaders: ctx.extraHeaders }, body),
  );
  const { balancesBefore: before, hold } = result.meta;
  Object.assign(ctx.extraHeaders, modelHeaders(ctx.headerCtx, result.meta.model, result.meta.router), balanceHeaders(ctx.headerCtx, before));
  // A stream's headers leave before its cost is known: they count its hold, the most it can cost.
  setBalanceRemaining(ctx, before.usd - before.usdHeld - (result.kind === 'json' ? result.charged.usd : hold.usd));
  if (result.kind === 'json') return ok(ctx, result.body);

  startSse(ctx.res, { ...baseHeaders(ctx.headerCtx), ...ctx.extraHeaders });
  // A reasoning model can think in silence for a long time; a comment line keeps idle-timeout proxies from cutting it.
  let lastWrite = Date.now();
  const keepAliveMs = svc.config.sseKeepAliveMs;
  const keepAlive = setInterval(
    () => {
      if (Date.now() - lastWrite < keepAliveMs || ctx.res.destroyed) return;
      ctx.res.write(': keep-alive\n\n');
      lastWrite = Date.now();
    },
    Math.max(10, Math.floor(keepAliveMs / 3)),
  );
  try {
    const { head } = result;
    for await (const step of result.events) {
      if (ctx.res.destroyed) break;
      const drained = writeEvent(ctx.res, chatSseEvent(head, step));
      lastWrite = Date.now();
      if (drained) await drained;
    }
  } finally {
    clearInterval(keepAlive);
    ctx.res.end();
  }
}
