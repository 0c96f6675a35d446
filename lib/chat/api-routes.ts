// POST /chat/completions: parse, run the pipeline, write JSON or the stream's events as SSE (sse.ts).
import { balanceHeaders, modelHeaders } from '../api/headers.ts';
import { runChat } from './pipeline.ts';
import { jsonBodyWithBytes, principalOf, type RequestCtx, setBalanceRemaining, withWalletCredit } from '../http/context.ts';
import { e2eeChatCompletions, hasE2eeHeaders, wantsE2ee } from './e2ee.ts';
import { chatSseEvent, chatStepHasOutput } from './sse.ts';
import { events, json, type Reply } from '../http/reply.ts';

export async function chatCompletions(ctx: RequestCtx): Promise<Reply> {
  const principal = principalOf(ctx);
  const { value: body, bytes } = await jsonBodyWithBytes(ctx);
  const { svc } = ctx;
  if (wantsE2ee(ctx, body)) return withWalletCredit(ctx, () => e2eeChatCompletions(ctx, body, bytes));
  const chatCtx = { principal, requestId: ctx.requestId, signal: ctx.signal, responseHeaders: ctx.extraHeaders, e2eeHeaders: hasE2eeHeaders(ctx) };
  const result = await withWalletCredit(ctx, () => runChat(svc.chatDeps, chatCtx, body));
  const { balancesBefore: before, hold } = result.meta;
  Object.assign(ctx.extraHeaders, modelHeaders(ctx.headerCtx, result.meta.model, result.meta.router), balanceHeaders(ctx.headerCtx, before));
  // A stream's headers leave before its cost is known: they count its hold, the most it can cost.
  setBalanceRemaining(ctx, before.usd - before.usdHeld - (result.kind === 'json' ? result.charged.usd : hold.usd));
  if (result.kind === 'json') return json(result.body);

  const { head } = result;
  return events(result.events, (step) => chatSseEvent(head, step), chatStepHasOutput);
}
