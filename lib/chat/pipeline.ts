// POST /chat/completions, framework-free: validate → plan → reserve credit → run the engine → shape → settle.
// A failure before any output releases the hold (costs nothing); a stream that fails or is aborted midway is
// billed for what it produced. The lean API layer and the browser app's route handlers both call runChat.
import { ApiError } from '../api/errors.ts';
import { type ChatRequest, chatRequestSchema } from './schema.ts';
import { parseOrThrow } from '../api/validation.ts';
import { bodyToInternal, echoToWire } from '../api/wire-rename.ts';
import type { Amount } from '../billing/money.ts';
import type { SearchProvider, SearchResult } from '../augment/types.ts';
import { openMeter, refuseUnaffordable } from '../billing/metered.ts';
import { type CallContext, type CallDeps, type CallMeta, engineFailure, startEngine } from '../engines/call.ts';
import { type EngineChunk, EngineError, type EngineRequest, type EngineUsage } from '../engines/text/types.ts';
import { CHEAP_CHECKS_ABOVE_BYTES, estimatePromptTokens, estimateTextTokens, minPromptTokens, promptBytes } from '../engines/text/estimate.ts';
import type { ChatStream, StreamHead } from './events.ts';
import { costRecord, shapeChoice, StreamShaper, usageRecord } from './output.ts';
import { type AugmentPlan, applyAugmentation, type FetchedAugmentation, fetchAugmentation, planAugmentation } from './augment.ts';
import { documentsToolCall, normaliseChoiceCitations } from './documents.ts';
import { fallsBack, modelCandidates } from './fallbacks.ts';
import { paramsEcho } from './params.ts';
import { prepareChat } from './prepare.ts';
import { log } from '../log.ts';

export interface ChatDeps extends CallDeps {
  searchAvailable: boolean;
  /** The configured web search provider, when there is one. */
  searchProvider?: SearchProvider;
  /** Fees per search and per scraped URL, in micro-units (USD and DIEM alike). */
  augmentPrices: { search: number; scrapedUrl: number };
  /** Writes down chat's input_audio for models that do not hear (lib/audio); undefined: no transcription here. */
  transcribeAudio?: AudioTranscriber;
}

/** Audio bytes in a chat format (wav, mp3, …, pcm16) → their transcript; undefined when no transcription model can run. */
export type AudioTranscriber = (data: Buffer, format: string, ctx: { requestId: string; signal: AbortSignal }) => Promise<string | undefined>;

export interface ChatRunOptions {
  /** The usage row's endpoint (default `/chat/completions`; the Responses API runs the same pipeline). */
  endpoint?: string;
}

export type ChatResult =
  | { kind: 'json'; meta: CallMeta; body: Record<string, unknown>; charged: Amount }
  /** `head` is what every wire chunk repeats; the HTTP layer alone turns the events into SSE text. */
  | { kind: 'stream'; meta: CallMeta; head: StreamHead; events: ChatStream };

const contextExceeded = (contextLength: number, tokens: string) =>
  new ApiError(
    'CONTEXT_LENGTH_EXCEEDED',
    `This model's maximum context length is ${contextLength} tokens; your messages have ${tokens} tokens. Please reduce your prompt.`,
    { param: 'messages' },
  );

// The completion id carries the request id (the CF-RAY header), so a response found in a client log leads straight
// to its usage row.
const completionId = (requestId: string) => `chatcmpl-${requestId}`;

export async function runChat(deps: ChatDeps, ctx: CallContext, rawBody: unknown): Promise<ChatResult> {
  if (!rawBody || typeof rawBody !== 'object' || Array.isArray(rawBody)) throw new ApiError('INVALID_REQUEST', 'The request body must be a JSON object');
  const req = parseOrThrow(chatRequestSchema, bodyToInternal(rawBody as Record<string, unknown>, deps.wire), deps.wire);
  return runChatRequest(deps, ctx, req);
}

/** What the attempts of one request share: the web augmentation found once (a fallback reuses it). */
interface Attempts {
  augmentation?: { key: string; text: string; fetched: Promise<FetchedAugmentation> };
}

/**
 * Runs a validated request: its model, then each fallback in turn while the one before could not serve
 * (lib/chat/fallbacks.ts). Each attempt is its own metered call, released when it fails, so only the answering model bills.
 */
export async function runChatRequest(deps: ChatDeps, ctx: CallContext, req: ChatRequest, opts: ChatRunOptions = {}): Promise<ChatResult> {
  const candidates = modelCandidates(req, deps.catalogue, deps.wire.includeSystemPrompt);
  const shared: Attempts = {};
  for (let i = 0; ; i++) {
    try {
      return await attemptChat(deps, ctx, i === 0 ? req : { ...req, model: candidates[i] }, opts.endpoint ?? '/chat/completions', shared);
    } catch (e) {
      if (i + 1 >= candidates.length || !fallsBack(e) || ctx.signal.aborted) throw e;
      log.warn(`chat ${ctx.requestId}: ${candidates[i]} failed (${(e as ApiError).code}); falling back to ${candidates[i + 1]}`);
    }
  }
}

async function attemptChat(deps: ChatDeps, ctx: CallContext, req: ChatRequest, endpoint: string, shared: Attempts): Promise<ChatResult> {
  const plan = await prepareChat(req, {
    catalogue: deps.catalogue,
    store: deps.store,
    includeSystemPromptKey: deps.wire.includeSystemPrompt,
    searchAvailable: deps.searchAvailable,
    accountId: ctx.principal.accountId,
    fetchAllowHosts: deps.fetchAllowHosts,
    e2eeHeaders: ctx.e2eeHeaders,
    transcribeAudio: deps.transcribeAudio && ((data, format) => deps.transcribeAudio!(data, format, ctx)),
  });
  // Cheap checks before any expensive work (issue 11): a prompt whose lower bound of tokens (bytes / the most bytes a
  // token can stand for) already exceeds the context is refused unseen, and a large one is counted only once the
  // account can pay for that lower bound. The exact count stops once past the context (and never holds the loop).
  const contextLength = plan.model.context_length;
  const bytes = promptBytes(plan.messages);
  if (minPromptTokens(bytes) > contextLength) throw contextExceeded(contextLength, `at least ${minPromptTokens(bytes)}`);
  if (bytes > CHEAP_CHECKS_ABOVE_BYTES) {
    await refuseUnaffordable(deps, ctx, {
      model: plan.model,
      endpoint,
      estimate: { promptTokens: minPromptTokens(bytes), completionTokens: plan.engineParams.max_tokens * plan.engineParams.n },
    });
  }
  const engine = await startEngine(deps, plan.model);
  const counted = await engine.countTokens?.(plan.messages, { limit: contextLength }).catch(() => undefined);
  if (counted !== undefined && counted > contextLength) throw contextExceeded(contextLength, `more than ${contextLength}`);
  const promptTokens = counted ?? estimatePromptTokens(plan.messages);
  const augmentPlan = planAugmentation(plan.params, plan.messages, deps.searchAvailable);
  // Admit and hold the worst case: the whole prompt (with the augmentation's allowance) uncached, every choice at
  // max_tokens, and every planned search and page.
  const meter = await openMeter(deps, ctx, {
    model: plan.model,
    endpoint,
    fees: deps.augmentPrices,
    estimate: {
      promptTokens: promptTokens + augmentPlan.allowanceTokens,
      completionTokens: plan.engineParams.max_tokens * plan.engineParams.n,
      searches: augmentPlan.search ? 1 : 0,
      scrapedUrls: augmentPlan.urls.length,
    },
  });
  const meta: CallMeta = { model: plan.model, router: engine.router, balancesBefore: meter.before, hold: meter.hold };
  // Nothing was produced: the hold goes back to the balance and the token estimate to the rate budget.
  const abandon = () => meter.release();
  let fetched: FetchedAugmentation;
  try {
    fetched = await augmentOnce(deps, ctx, shared, augmentPlan);
  } catch (e) {
    abandon();
    throw e;
  }
  const aug = fetched.result;
  const engineReq: EngineRequest = {
    requestId: ctx.requestId,
    model: plan.model.id,
    messages: applyAugmentation(plan.messages, fetched, plan.params.enable_web_citations),
    params: plan.engineParams,
    cacheKey: plan.cacheKey,
    signal: ctx.signal,
  };
  // The charge is known from the hold at once; it is recorded (meter.recorded: journaled or committed) before the answer's last bytes.
  const bill = (usage: EngineUsage): Amount =>
    meter.settle({
      promptTokens: usage.prompt_tokens,
      completionTokens: usage.completion_tokens,
      cachedTokens: usage.cached_tokens ?? 0,
      searches: aug.searches,
      scrapedUrls: aug.scrapedUrls,
    });
  const echo = () => echoToWire(paramsEcho(plan.params, aug.citations), deps.wire);
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
    await meter.recorded();
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
        [deps.wire.params]: echo(),
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
    head: { id: completionId(ctx.requestId), created: Math.floor(Date.now() / 1000), model: plan.model.id, paramsKey: deps.wire.params },
    events: streamEvents({
      iterator,
      first,
      promptTokens,
      keepReasoning,
      bill,
      abandon,
      echo,
      recorded: () => meter.recorded(),
      signal: ctx.signal,
      citations: aug.citations,
      citing,
      documents,
      citationsFirst: plan.params.include_search_results_in_stream && aug.citations.length > 0,
    }),
  };
}

/** The plan's searches and pages, fetched once per request: a fallback with the same plan reuses them. */
function augmentOnce(deps: ChatDeps, ctx: CallContext, shared: Attempts, plan: AugmentPlan): Promise<FetchedAugmentation> {
  // The text is compared, not written into the key: it is the whole latest message, megabytes at times.
  const key = JSON.stringify([plan.urls, plan.search]);
  const kept = shared.augmentation;
  if (kept?.key !== key || kept.text !== plan.text) {
    const fetched = fetchAugmentation(plan, { provider: deps.searchProvider, signal: ctx.signal, allowHosts: deps.fetchAllowHosts });
    shared.augmentation = { key, text: plan.text, fetched };
    return fetched;
  }
  return kept.fetched;
}

interface StreamRun {
  iterator: AsyncIterator<EngineChunk>;
  first: IteratorResult<EngineChunk>;
  promptTokens: number;
  keepReasoning: boolean;
  bill: (u: EngineUsage) => Amount;
  /** Resolves once the settlement is recorded, journaled or committed (before the usage chunk and [DONE] go out). */
  recorded: () => Promise<void>;
  /** Releases the hold and the token estimate when the stream produced nothing. */
  abandon: () => void;
  /** The service-parameters echo, in the wire's names. */
  echo: () => Record<string, unknown>;
  citations: SearchResult[];
  /** Rewrite bracket citations to the caret form. */
  citing: boolean;
  /** The search-documents tool call, sent before the model's output. */
  documents?: ReturnType<typeof documentsToolCall>;
  /** Send the search results as the first chunk. */
  citationsFirst: boolean;
  signal: AbortSignal;
}

async function* streamEvents(run: StreamRun): ChatStream {
  const { iterator, promptTokens, bill, echo } = run;
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
    if (run.citationsFirst) yield [{ type: 'citations', results: run.citations }];
    if (run.documents) {
      yield [
        { type: 'delta', index: 0, role: 'assistant' },
        { type: 'tool_calls', index: 0, calls: [{ index: 0, ...run.documents }] },
      ];
    }
    let next = run.first;
    let failure: EngineError | undefined;
    while (!next.done) {
      const events = shaper.shape(next.value);
      if (events.length) yield events;
      try {
        next = await iterator.next();
      } catch (e) {
        failure = e instanceof EngineError ? e : new EngineError('failed', String(e));
        break;
      }
    }
    if (run.signal.aborted) return; // nobody to tell; finally bills what was produced
    if (failure) {
      settleOnce();
      yield [{ type: 'error', message: 'Inference failed mid-stream: the model stopped before finishing.' }];
      return;
    }
    const charged = settleOnce();
    const usage = shaper.usage ?? { prompt_tokens: promptTokens, completion_tokens: shaper.producedPieces };
    // The stream is complete for the client only with its usage chunk and [DONE]: they follow the commit.
    await run.recorded();
    yield [{ type: 'usage', usage, cost: charged, params: echo() }];
  } finally {
    await iterator.return?.().catch(() => undefined);
    settleOnce();
  }
}
