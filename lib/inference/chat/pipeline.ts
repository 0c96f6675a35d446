// POST /chat/completions, framework-free: validate → plan → reserve credit → run the engine → shape → settle.
// A failure before any output releases the hold (costs nothing); a stream that fails or is aborted midway is
// billed for what it produced. The lean API layer and the browser app's route handlers both call runChat.
import { ApiError } from '../../api/errors.ts';
import { chatRequestSchema } from '../../api/chat-schema.ts';
import { parseOrThrow } from '../../api/validation.ts';
import { bodyToInternal, echoToWire } from '../../api/wire-rename.ts';
import type { WireNames } from '../../api/wire.ts';
import { keyLimitOf, type Principal } from '../../auth/keys.ts';
import { type Balances, chargeFor, type Hold } from '../../billing/ledger.ts';
import type { Ledger } from '../../billing/ledger-service.ts';
import type { Amount } from '../../billing/money.ts';
import { costOf, estimateOf } from '../../billing/pricing.ts';
import type { Store } from '../../db/store.ts';
import { recordBreach } from '../../limits/breach-log.ts';
import { type Admission, type RateLimiter, rateLimitTypeOf } from '../../limits/rate-limiter.ts';
import type { SearchProvider } from '../../augment/types.ts';
import type { Catalogue } from '../../models/catalogue.ts';
import type { ModelEntry } from '../../models/schema.ts';
import type { EngineRegistry } from '../registry.ts';
import { type Engine, type EngineChunk, EngineError, type EngineRequest, type EngineUsage } from '../types.ts';
import { estimatePromptTokens, estimateTextTokens } from './estimate.ts';
import { costRecord, shapeChoice, StreamShaper, usageRecord } from './output.ts';
import { type Augmentation, planAugmentation, planFees, runAugmentation } from './augment.ts';
import { documentsToolCall, normaliseChoiceCitations } from './documents.ts';
import { paramsEcho } from './params.ts';
import { type ChatPlan, prepareChat } from './prepare.ts';

export interface ChatDeps {
  store: Store;
  ledger: Ledger;
  limiter: RateLimiter;
  catalogue: Catalogue;
  engines: EngineRegistry;
  wire: WireNames;
  searchAvailable: boolean;
  /** The configured web search provider, when there is one. */
  searchProvider?: SearchProvider;
  /** Fees per search and per scraped URL, in micro-units (USD and DIEM alike). */
  augmentPrices: { search: number; scrapedUrl: number };
}

export interface ChatContext {
  principal: Principal;
  /** Our request id (also the CF-RAY header and the usage row's key). */
  requestId: string;
  /** Aborts when the client goes away. */
  signal: AbortSignal;
  /** Receives headers every response to this request carries from admission on (x-ratelimit-*), errors included. */
  responseHeaders: Record<string, string>;
}

export interface ChatMeta {
  model: ModelEntry;
  router: string;
  balancesBefore: Balances;
  /** The credit reserved for the request: the most it can cost. */
  hold: Hold;
}

export type ChatResult =
  | { kind: 'json'; meta: ChatMeta; body: Record<string, unknown>; charged: Amount }
  | { kind: 'stream'; meta: ChatMeta; events: AsyncGenerator<string, void, undefined> };

export function engineFailure(e: unknown): ApiError {
  if (e instanceof ApiError) return e;
  if (!(e instanceof EngineError)) return new ApiError('INFERENCE_FAILED');
  switch (e.kind) {
    case 'capacity':
      return new ApiError('MODEL_AT_CAPACITY', undefined, undefined, { 'retry-after': '5' });
    case 'timeout':
      return new ApiError('REQUEST_TIMEOUT');
    case 'bad_request':
      return new ApiError('INVALID_REQUEST', `The model rejected the request: ${e.message}`);
    case 'context_length':
      return new ApiError('CONTEXT_LENGTH_EXCEEDED', undefined, { param: 'messages' });
    default:
      return new ApiError('INFERENCE_FAILED');
  }
}

// The completion id carries the request id (the CF-RAY header), so a response found in a client log leads straight
// to its usage row.
const completionId = (requestId: string) => `chatcmpl-${requestId}`;
const sse = (obj: unknown) => `data: ${JSON.stringify(obj)}\n\n`;

const withFees = (a: Amount, fees: number): Amount => ({ usd: a.usd + fees, diem: a.diem + fees });

/** Takes the request and its token estimate from the credential's budget for this model; 429 (logged) when over. */
export async function admit(deps: Pick<ChatDeps, 'limiter' | 'store'>, ctx: ChatContext, model: ModelEntry, tokens: number): Promise<Admission> {
  const p = ctx.principal;
  const tier = p.accountTier === 'partner' ? 'partner' : 'default';
  try {
    return await deps.limiter.admit({ credential: p.keyId, modelId: model.id, model, tier }, tokens);
  } catch (e) {
    const type = rateLimitTypeOf(e);
    if (type) {
      recordBreach(deps.store, { accountId: p.accountId, keyId: p.keyId, modelId: model.id, type, tier }).catch((err) =>
        console.error('could not record a rate-limit breach:', err),
      );
    }
    throw e;
  }
}

export async function startEngine(deps: Pick<ChatDeps, 'engines'>, model: ModelEntry): Promise<Engine> {
  try {
    return await deps.engines.get(model);
  } catch (e) {
    console.error(`engine for ${model.id} failed to start:`, e);
    throw new ApiError('INFERENCE_FAILED', `The engine for model ${model.id} could not start`);
  }
}

export async function runChat(deps: ChatDeps, ctx: ChatContext, rawBody: unknown): Promise<ChatResult> {
  if (!rawBody || typeof rawBody !== 'object' || Array.isArray(rawBody)) throw new ApiError('INVALID_REQUEST', 'The request body must be a JSON object');
  const req = parseOrThrow(chatRequestSchema, bodyToInternal(rawBody as Record<string, unknown>, deps.wire), deps.wire);
  const plan = await prepareChat(req, {
    catalogue: deps.catalogue,
    store: deps.store,
    includeSystemPromptKey: deps.wire.includeSystemPrompt,
    searchAvailable: deps.searchAvailable,
  });
  const engine = await startEngine(deps, plan.model);
  const promptTokens = (await engine.countTokens?.(plan.messages).catch(() => undefined)) ?? estimatePromptTokens(plan.messages);
  const augmentPlan = planAugmentation(plan.params, plan.messages, deps.searchAvailable);
  const admission = await admit(deps, ctx, plan.model, promptTokens + augmentPlan.allowanceTokens + plan.engineParams.max_tokens * plan.engineParams.n);
  Object.assign(ctx.responseHeaders, admission.headers);
  const reserved = deps.ledger.reserve({
    requestId: ctx.requestId,
    accountId: ctx.principal.accountId,
    keyId: ctx.principal.keyId,
    keyLimit: keyLimitOf(ctx.principal.key),
    estimate: withFees(estimateOf(plan.model, promptTokens + augmentPlan.allowanceTokens, plan.engineParams.max_tokens, plan.engineParams.n), planFees(augmentPlan, deps.augmentPrices)),
  });
  // A request refused for credit still counted as a request; its tokens go back to the budget.
  const { hold, before } = await reserved.catch((e) => {
    void admission.finish(0);
    throw e;
  });
  const meta: ChatMeta = { model: plan.model, router: engine.router, balancesBefore: before, hold };
  // Nothing was produced: the hold goes back to the balance and the token estimate to the rate budget.
  const abandon = () => {
    void deps.ledger.release(hold);
    void admission.finish(0);
  };
  let augmented: { messages: typeof plan.messages; result: Augmentation };
  try {
    augmented = await runAugmentation(augmentPlan, plan.messages, { provider: deps.searchProvider, citations: plan.params.enable_web_citations, signal: ctx.signal });
  } catch (e) {
    abandon();
    throw e;
  }
  const aug = augmented.result;
  const engineReq: EngineRequest = {
    requestId: ctx.requestId,
    model: plan.model.id,
    messages: augmented.messages,
    params: plan.engineParams,
    cacheKey: plan.cacheKey,
    signal: ctx.signal,
  };
  // The charge is known from the hold at once; the ledger commits it after the response is on its way.
  const bill = (usage: EngineUsage): Amount => {
    void admission.finish(usage.prompt_tokens + usage.completion_tokens);
    const fees = aug.searches * deps.augmentPrices.search + aug.scrapedUrls * deps.augmentPrices.scrapedUrl;
    const cost = withFees(costOf(plan.model, { promptTokens: usage.prompt_tokens, completionTokens: usage.completion_tokens, cachedTokens: usage.cached_tokens ?? 0 }), fees);
    void deps.ledger.settle(hold, cost, {
      modelId: plan.model.id,
      endpoint: '/chat/completions',
      promptTokens: usage.prompt_tokens,
      completionTokens: usage.completion_tokens,
      cachedTokens: usage.cached_tokens ?? 0,
      searches: aug.searches,
      scrapedUrls: aug.scrapedUrls,
    });
    return chargeFor(cost, hold);
  };
  const echo = () => ({ [deps.wire.params]: echoToWire(paramsEcho(plan.params, aug.citations), deps.wire) });
  // Citations are rewritten to the caret form only when the model was asked to cite sources it was given.
  const citing = plan.params.enable_web_citations && aug.citations.length > 0;
  const documents = plan.params.return_search_results_as_documents && aug.citations.length > 0 ? documentsToolCall(aug.citations) : undefined;
  const keepReasoning = !(plan.params.strip_thinking_response || plan.engineParams.disable_thinking);

  if (!plan.stream) {
    let completion;
    try {
      completion = await engine.complete(engineReq);
    } catch (e) {
      abandon();
      throw engineFailure(e);
    }
    const choices = completion.choices.map((c) => {
      const shaped = shapeChoice(c, keepReasoning);
      if (citing) normaliseChoiceCitations(shaped.message, aug.citations.length);
      if (documents) shaped.message.tool_calls = [documents, ...shaped.message.tool_calls];
      return shaped;
    });
    const usage = completion.usage ?? {
      prompt_tokens: promptTokens,
      completion_tokens: completion.choices.reduce((n, c) => n + estimateTextTokens(c.message.content ?? ''), 0),
    };
    const charged = bill(usage);
    return {
      kind: 'json',
      meta,
      charged,
      body: {
        id: completionId(ctx.requestId),
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: plan.model.id,
        choices,
        usage: usageRecord(usage),
        cost: costRecord(charged),
        prompt_logprobs: null,
        ...echo(),
      },
    };
  }

  // Streams: nothing is sent until the engine's first chunk, so a failure before any output is a plain HTTP error.
  const iterator = engine.stream(engineReq)[Symbol.asyncIterator]();
  let first: IteratorResult<EngineChunk>;
  try {
    first = await iterator.next();
  } catch (e) {
    abandon();
    throw engineFailure(e);
  }
  return {
    kind: 'stream',
    meta,
    events: streamEvents({
      plan, iterator, first, promptTokens, keepReasoning, bill, abandon, echo, signal: ctx.signal, requestId: ctx.requestId,
      citations: aug.citations, citing, documents,
      citationsFirst: plan.params.include_search_results_in_stream && aug.citations.length > 0,
      paramsKey: deps.wire.params,
    }),
  };
}

interface StreamRun {
  plan: ChatPlan;
  iterator: AsyncIterator<EngineChunk>;
  first: IteratorResult<EngineChunk>;
  promptTokens: number;
  keepReasoning: boolean;
  bill: (u: EngineUsage) => Amount;
  /** Releases the hold and the token estimate when the stream produced nothing. */
  abandon: () => void;
  echo: () => Record<string, unknown>;
  citations: unknown[];
  /** Rewrite bracket citations to the caret form. */
  citing: boolean;
  /** The search-documents tool call, sent before the model's output. */
  documents?: ReturnType<typeof documentsToolCall>;
  /** Send the search results as the first chunk. */
  citationsFirst: boolean;
  paramsKey: string;
  signal: AbortSignal;
  requestId: string;
}

async function* streamEvents(run: StreamRun): AsyncGenerator<string, void, undefined> {
  const { plan, iterator, promptTokens, bill, echo } = run;
  const id = completionId(run.requestId);
  const created = Math.floor(Date.now() / 1000);
  const shaper = new StreamShaper(run.keepReasoning, run.citing ? run.citations.length : undefined, run.documents ? 1 : 0);
  let settled: Amount | undefined;
  const settleOnce = (): Amount => {
    if (settled) return settled;
    // The engine's own count when it gave one; otherwise what we relayed (one piece ≈ one token).
    const usage = shaper.usage ?? { prompt_tokens: promptTokens, completion_tokens: shaper.producedPieces };
    if (usage.completion_tokens === 0 && !shaper.usage) {
      run.abandon();
      settled = { usd: 0, diem: 0 };
    } else settled = bill(usage);
    return settled;
  };
  try {
    if (run.citationsFirst) {
      yield sse({ id, object: 'chat.completion.chunk', created, model: plan.model.id, choices: [], [run.paramsKey]: { web_search_citations: run.citations } });
    }
    if (run.documents) {
      const call = { index: 0, ...run.documents };
      yield sse({ id, object: 'chat.completion.chunk', created, model: plan.model.id, choices: [{ index: 0, delta: { role: 'assistant', tool_calls: [call] }, finish_reason: null }] });
    }
    let next = run.first;
    let failure: EngineError | undefined;
    while (!next.done) {
      const choices = shaper.shape(next.value);
      if (choices.length) yield sse({ id, object: 'chat.completion.chunk', created, model: plan.model.id, choices });
      try {
        next = await iterator.next();
      } catch (e) {
        failure = e instanceof EngineError ? e : new EngineError('failed', String(e));
        break;
      }
    }
    if (run.signal.aborted) return; // nobody to tell; finally bills what was produced
    if (failure) {
      yield sse({ error: { message: 'Inference failed mid-stream: the model stopped before finishing.', type: 'server_error', code: 'upstream_error', param: null } });
      settleOnce();
      yield 'data: [DONE]\n\n';
      return;
    }
    const charged = settleOnce();
    const usage = shaper.usage ?? { prompt_tokens: promptTokens, completion_tokens: shaper.producedPieces };
    yield sse({ id, object: 'chat.completion.chunk', created, model: plan.model.id, choices: [], usage: usageRecord(usage), cost: costRecord(charged), ...echo() });
    yield 'data: [DONE]\n\n';
  } finally {
    await iterator.return?.().catch(() => undefined);
    settleOnce();
  }
}
