// POST /responses (OpenAI's Responses API): parse, run the chat pipeline through lib/responses, write the
// Response object as JSON or its typed events as SSE (sse.ts), with the same headers as chat.
import { balanceHeaders, modelHeaders } from '../api/headers.ts';
import { runResponses } from './run.ts';
import { jsonBody, principalOf, type RequestCtx, setBalanceRemaining, withWalletCredit } from '../http/context.ts';
import { events, json, type Reply } from '../http/reply.ts';
import { responsesSseEvents, responsesStepHasOutput } from './sse.ts';

export async function responses(ctx: RequestCtx): Promise<Reply> {
  const principal = principalOf(ctx);
  const body = await jsonBody(ctx);
  const { svc } = ctx;
  // E2EE is a chat feature (its headers encrypt chat messages): here enable_e2ee never asks for it.
  const chatCtx = { principal, requestId: ctx.requestId, signal: ctx.signal, responseHeaders: ctx.extraHeaders, e2eeHeaders: false };
  const result = await withWalletCredit(ctx, () => runResponses(svc.chatDeps, chatCtx, body));
  const { balancesBefore: before, hold } = result.meta;
  Object.assign(ctx.extraHeaders, modelHeaders(ctx.headerCtx, result.meta.model, result.meta.router), balanceHeaders(ctx.headerCtx, before));
  // A stream's headers leave before its cost is known: they count its hold, the most it can cost.
  setBalanceRemaining(ctx, before.usd - before.usdHeld - (result.kind === 'json' ? result.charged.usd : hold.usd));
  if (result.kind === 'json') return json(result.body);
  return events(result.events, responsesSseEvents, responsesStepHasOutput);
}
