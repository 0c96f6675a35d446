// POST /embeddings: a key or a signed-in wallet, like chat; the JSON answer is compressed when the client accepts it.
import { balanceHeaders, modelHeaders } from '../api/headers.ts';
import { runEmbeddings } from './pipeline.ts';
import { jsonBody, principalOf, type RequestCtx, setBalanceRemaining, withWalletCredit } from '../http/context.ts';
import { json, type Reply } from '../http/reply.ts';

export async function embeddings(ctx: RequestCtx): Promise<Reply> {
  const principal = principalOf(ctx);
  const body = await jsonBody(ctx);
  const result = await withWalletCredit(ctx, () =>
    runEmbeddings(ctx.svc.chatDeps, { principal, requestId: ctx.requestId, signal: ctx.signal, responseHeaders: ctx.extraHeaders }, body),
  );
  const { balancesBefore: before, model, router } = result.meta;
  Object.assign(ctx.extraHeaders, modelHeaders(ctx.headerCtx, model, router), balanceHeaders(ctx.headerCtx, before));
  setBalanceRemaining(ctx, before.usd - before.usdHeld - result.charged.usd);
  return json(result.body);
}
