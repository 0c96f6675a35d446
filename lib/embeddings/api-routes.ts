// POST /embeddings: a key or a signed-in wallet, like chat; the JSON answer is compressed when the client accepts it.
import { balanceHeaders, modelHeaders } from '../api/headers.ts';
import { runEmbeddings } from './pipeline.ts';
import { jsonBody, principalOf, type RequestCtx, setBalanceRemaining, withWalletCredit } from '../http/context.ts';
import { json, jsonOffLoop, type Reply } from '../http/reply.ts';
import { OFF_LOOP_JSON_BYTES } from '../json/off-loop.ts';
import type { Vector } from '../engines/text/vectors.ts';

/** About how many bytes the answer's JSON takes: a float is printed in up to 20 characters, base64 is as long as it is. */
function answerBytes(data: { embedding: Vector | string }[]): number {
  const first = data[0]?.embedding;
  if (first === undefined) return 0;
  return data.length * (typeof first === 'string' ? first.length : first.length * 20);
}

export async function embeddings(ctx: RequestCtx): Promise<Reply> {
  const principal = principalOf(ctx);
  const body = await jsonBody(ctx);
  const result = await withWalletCredit(ctx, () =>
    runEmbeddings(ctx.svc.chatDeps, { principal, requestId: ctx.requestId, signal: ctx.signal, responseHeaders: ctx.extraHeaders }, body),
  );
  const { balancesBefore: before, model, router } = result.meta;
  Object.assign(ctx.extraHeaders, modelHeaders(ctx.headerCtx, model, router), balanceHeaders(ctx.headerCtx, before));
  setBalanceRemaining(ctx, before.usd - before.usdHeld - result.charged.usd);
  const data = result.body.data as { embedding: Vector | string }[];
  if (answerBytes(data) >= OFF_LOOP_JSON_BYTES) return jsonOffLoop(result.body);
  // A vector the JSON thread parsed is a Float64Array, which JSON.stringify would write as an object.
  for (const d of data) if (d.embedding instanceof Float64Array) d.embedding = Array.from(d.embedding);
  return json(result.body);
}
