// POST /responses, framework-free: validate the Responses request, translate it to a chat request, run it through
// the chat pipeline (the same plan, admission, hold, engine, fallbacks and settlement as /chat/completions; the usage
// row's endpoint is /responses), and shape the result as a Response object or its typed stream events.
import { chatRequestSchema } from '../chat/schema.ts';
import { ApiError } from '../api/errors.ts';
import { parseOrThrow } from '../api/validation.ts';
import { bodyToInternal } from '../api/wire-rename.ts';
import type { SearchResult } from '../augment/types.ts';
import type { Amount } from '../billing/money.ts';
import { type ChatDeps, runChatRequest } from '../chat/pipeline.ts';
import type { CallContext, CallMeta } from '../engines/call.ts';
import type { EngineUsage, FinishReason } from '../engines/text/types.ts';
import { outputItems, type ResponseHead, responseObject, statusOf } from './output.ts';
import { responsesRequestSchema } from './schema.ts';
import { type ResponsesStream, responsesStream } from './stream.ts';
import { responsesToChat } from './to-chat.ts';

export type ResponsesResult =
  | { kind: 'json'; meta: CallMeta; body: Record<string, unknown>; charged: Amount }
  | { kind: 'stream'; meta: CallMeta; events: ResponsesStream };

interface ChatBodyOut {
  choices: { message: { content: string | null; reasoning_content: string | null; tool_calls: [] }; finish_reason: FinishReason | null }[];
  usage: {
    prompt_tokens: number;
    completion_tokens: number;
    prompt_tokens_details: { cached_tokens?: number } | null;
    completion_tokens_details: { reasoning_tokens?: number } | null;
  };
}

const engineUsage = (u: ChatBodyOut['usage']): EngineUsage => ({
  prompt_tokens: u.prompt_tokens,
  completion_tokens: u.completion_tokens,
  cached_tokens: u.prompt_tokens_details?.cached_tokens,
  reasoning_tokens: u.completion_tokens_details?.reasoning_tokens,
});

export async function runResponses(deps: ChatDeps, ctx: CallContext, rawBody: unknown): Promise<ResponsesResult> {
  if (!rawBody || typeof rawBody !== 'object' || Array.isArray(rawBody)) throw new ApiError('INVALID_REQUEST', 'The request body must be a JSON object');
  const req = parseOrThrow(responsesRequestSchema, bodyToInternal(rawBody as Record<string, unknown>, deps.wire), deps.wire);
  const chatReq = parseOrThrow(chatRequestSchema, responsesToChat(req), deps.wire);
  const result = await runChatRequest(deps, ctx, chatReq, { endpoint: '/responses' });
  const head: ResponseHead = { requestId: ctx.requestId, createdAt: Math.floor(Date.now() / 1000), model: result.meta.model.id, request: req };
  if (result.kind === 'stream') return { kind: 'stream', meta: result.meta, events: responsesStream(head, result.events) };
  const body = result.body as unknown as ChatBodyOut;
  const choice = body.choices[0];
  const echo = result.body[deps.wire.params] as { web_search_citations?: SearchResult[] } | undefined;
  const output = outputItems(ctx.requestId, choice.message, choice.finish_reason, echo?.web_search_citations ?? []);
  const { status, incomplete_details } = statusOf(choice.finish_reason);
  return {
    kind: 'json',
    meta: result.meta,
    charged: result.charged,
    body: responseObject(head, status, { output, usage: engineUsage(body.usage), incomplete_details }),
  };
}
