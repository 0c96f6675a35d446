// The in-process llama.cpp engine (node-llama-cpp, CPU prebuilt): one GGUF model, `seqs` context sequences served
// concurrently, the rest waiting in a bounded FIFO queue.
//
// - Prompt: the OpenAI messages become a node-llama-cpp chat history rendered by the model's own chat wrapper
//   (the GGUF's Jinja chat_template, else a built-in wrapper node-llama-cpp picks for the model family). A
//   sequence keeps its last prompt in the KV cache, so a request sharing a prefix with it skips that part
//   (reported as usage.cached_tokens; free sequences are handed out by longest shared prefix).
// - Generation runs token by token on the sequence (evaluateWithMetadata) in a producer task that pushes chunks
//   into a queue the stream reads, so the sequence is released when generation ends whatever the reader does.
// - Sampling follows OpenAI defaults (temperature 1, no top-k / top-p / min-p) unless the request sets them; choice i
//   of a seeded request uses seed + i; repetition / frequency / presence penalties look at the last 64 outputs.
// - Usage is exact: prompt_tokens is the rendered prompt's token count (once, whatever n is); completion_tokens
//   counts every token the model sampled, including the end-of-generation token or the tokens of a stop string.
// - Abort (req.signal): while queued (or before the prompt is evaluated) the request throws signal.reason and
//   nothing is billable. Once started, an abort ends the output early instead of throwing: the stream finishes
//   normally with finish_reason 'stop' and a last chunk carrying the usage of what was generated, so the caller
//   can bill an aborted stream by reading it to the end (complete() likewise resolves with the partial text).
// - logprobs: each token's probability under the request's sampling settings, with top_logprobs (at most 20).
// - Errors: a full queue, or no sequence free within queueTimeoutMs → EngineError 'capacity'; prompt + max_tokens
//   beyond the context → 'context_length'; n / max_tokens not positive integers → 'bad_request'; load or runtime
//   failures → 'failed'.
// - Not supported: tools (the pipeline offers tools only for models whose catalogue entry says so; tool results
//   in the history are passed as user text), response_format, reasoning segments. A wrapper stop trigger made of
//   several special tokens is ignored (single-token triggers and plain-text triggers are honoured).
// - Embeddings (embed): a separate embedding context on the same loaded model, created on first use (a model served
//   only for embeddings never allocates a chat context). Inputs run one at a time in request order; vectors are
//   L2-normalised; an input longer than the context → 'context_length' naming its index, before any is evaluated.
import path from 'node:path';
import { randomInt } from 'node:crypto';
import {
  getLlama,
  resolveChatWrapper,
  type ChatWrapper,
  type Llama,
  type LlamaContext,
  type LlamaContextSequence,
  type LlamaEmbeddingContext,
  type LlamaModel,
  type Token,
} from 'node-llama-cpp';
import {
  EngineError,
  type ChoiceLogprobs,
  type EmbedOptions,
  type EmbedResult,
  type Engine,
  type EngineChoice,
  type EngineChunk,
  type EngineCompletion,
  type EngineMessage,
  type EngineRequest,
  type EngineUsage,
  type FinishReason,
  type TokenLogprob,
} from './types.ts';
import { AsyncQueue } from './llama/async-queue.ts';
import { toChatHistory } from './llama/chat-history.ts';
import { PoolClosedError, QueueFullError, SlotPool } from './llama/sequence-pool.ts';
import { StopText } from './llama/stop-text.ts';
import { tokenizeYielding } from './llama/tokenize.ts';
import { l2Normalise } from './vectors.ts';

export interface LlamaEngineOptions {
  /** The GGUF file. */
  path: string;
  /** Tokens per sequence (prompt + completion); default: the model's training context, at most 4096. */
  contextSize?: number;
  /** Requests that may wait for a sequence; beyond that, 'capacity' at once. Default 16. */
  maxQueue?: number;
  /** The longest a request waits for a sequence (or an embedding its turn); then 'capacity'. Default 60 s. */
  queueTimeoutMs?: number;
  /** CPU threads per evaluation. Default 1: on small machines more threads fight Node's own and run slower. */
  threads?: number;
  /** Sequences served concurrently. Default 1. */
  seqs?: number;
}

const DEFAULT_MAX_CONTEXT = 4096;
const DEFAULT_QUEUE_TIMEOUT_MS = 60_000;
// The prompt is evaluated in slices so an abort can stop a long prefill between them.
const PREFILL_SLICE = 256;
// Tokens of earlier output used to decode the next piece (SentencePiece spacing depends on what came before).
const DECODE_LOOKBEHIND = 4;
// Generated tokens the repetition penalties look at.
const PENALTY_WINDOW = 64;
const MIN_LOGPROB = -9999;

// One llama.cpp runtime per process, shared by every engine.
let sharedLlama: Promise<Llama> | undefined;
function getSharedLlama(): Promise<Llama> {
  sharedLlama ??= getLlama({ gpu: false, build: 'never' }).catch((err: unknown) => {
    sharedLlama = undefined;
    throw err;
  });
  return sharedLlama;
}

interface Loaded {
  model: LlamaModel;
  context: LlamaContext;
  wrapper: ChatWrapper;
  pool: SlotPool<LlamaContextSequence>;
}

interface Prompt {
  tokens: Token[];
  /** Single tokens that end the model's turn besides the model's end-of-generation tokens. */
  stopTokens: Set<Token>;
  /** The wrapper's plain-text stop triggers. */
  stopStrings: string[];
}

interface ChoiceResult {
  finishReason: FinishReason;
  completionTokens: number;
  cachedTokens: number;
}

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * The GGUF's own Jinja chat template when it has one: exact, and quick to set up ("auto" resolution first matches the
 * template against every built-in wrapper, about a second here, which only pays off for tool calls and reasoning
 * segments this engine does not use). Otherwise node-llama-cpp picks a wrapper from the model's metadata.
 */
function chatWrapperFor(model: LlamaModel): ChatWrapper {
  if (model.fileInfo.metadata.tokenizer?.chat_template) {
    try {
      return resolveChatWrapper(model, { type: 'jinjaTemplate', warningLogs: false });
    } catch {
      // A template the Jinja renderer cannot handle: fall back to the automatic choice.
    }
  }
  return resolveChatWrapper(model, { warningLogs: false });
}

export function createLlamaEngine(opts: LlamaEngineOptions): Engine {
  return new LlamaEngine(opts);
}

class LlamaEngine implements Engine {
  readonly router: string;
  private readonly opts: LlamaEngineOptions;
  private loading: Promise<Loaded> | null = null;
  private modelLoading: Promise<LlamaModel> | null = null;
  private embedding: Promise<LlamaEmbeddingContext> | null = null;
  /** Embedding requests run one after another on the one embedding context. */
  private embedTail: Promise<unknown> = Promise.resolve();
  private embedWaiting = 0;
  private closed = false;

  constructor(opts: LlamaEngineOptions) {
    this.opts = opts;
    this.router = `llama:${path.basename(opts.path)}`;
  }

  async complete(req: EngineRequest): Promise<EngineCompletion> {
    const choices: EngineChoice[] = [];
    let usage: EngineUsage | undefined;
    for await (const chunk of this.stream(req)) {
      for (const c of chunk.choices) {
        const choice = (choices[c.index] ??= {
          index: c.index,
          message: { role: 'assistant', content: '' },
          finish_reason: null,
          logprobs: req.params.logprobs ? { content: [] } : null,
        });
        if (c.delta.content) choice.message.content += c.delta.content;
        if (c.logprobs?.content) choice.logprobs!.content!.push(...c.logprobs.content);
        if (c.finish_reason) choice.finish_reason = c.finish_reason;
      }
      if (chunk.usage) usage = chunk.usage;
    }
    return { choices: choices.filter(Boolean), usage };
  }

  async *stream(req: EngineRequest): AsyncGenerator<EngineChunk, void, undefined> {
    const queue = new AsyncQueue<EngineChunk>();
    // Set when the reader stops early, so the producer stops generating for nobody.
    const readerGone = new AbortController();
    this.produce(req, queue, readerGone.signal).then(
      () => queue.end(),
      (err: unknown) => queue.fail(err),
    );
    try {
      yield* queue;
    } finally {
      readerGone.abort();
    }
  }

  /** The rendered prompt's tokens; with `limit`, counting stops once past it (the count is then only "more"). */
  async countTokens(messages: EngineMessage[], opts: { limit?: number } = {}): Promise<number> {
    const loaded = await this.load();
    return (await this.render(loaded, messages, opts.limit)).tokens.length;
  }

  async embed(inputs: string[], opts: EmbedOptions): Promise<EmbedResult> {
    if (this.embedWaiting >= (this.opts.maxQueue ?? 16) + 1)
      throw new EngineError('capacity', `${this.router} is at capacity: too many embedding requests waiting`);
    const context = await this.loadEmbedding();
    const contextSize = this.contextSizeFor(context.model);
    // Checked before anything runs, so an over-long input costs nothing and the error names the input to fix.
    const lengths = inputs.map((text) => context.calculateInputLength(text));
    const tooLong = lengths.findIndex((n) => n > contextSize);
    if (tooLong >= 0) {
      throw new EngineError('context_length', `Input ${tooLong} has ${lengths[tooLong]} tokens; this model embeds at most ${contextSize} tokens per input.`);
    }
    opts.signal.throwIfAborted();
    // Waiting for the turn is bounded like the chat queue: a waiter refused (or whose client left) gives up its turn
    // at once, and the one after it runs as soon as the one before it ends.
    const maxWaitMs = this.opts.queueTimeoutMs ?? DEFAULT_QUEUE_TIMEOUT_MS;
    let waiting = true;
    this.embedWaiting++;
    let stopWaiting!: (err: unknown) => void;
    const gaveUp = new Promise<never>((_, reject) => {
      stopWaiting = (err) => {
        if (!waiting) return;
        waiting = false;
        this.embedWaiting--;
        reject(err);
      };
    });
    gaveUp.catch(() => undefined);
    const timer = setTimeout(
      () => stopWaiting(new EngineError('capacity', `${this.router} is at capacity: no embedding turn within ${maxWaitMs} ms`)),
      maxWaitMs,
    );
    const onAbort = () => stopWaiting(opts.signal.reason);
    opts.signal.addEventListener('abort', onAbort, { once: true });
    const work = this.embedTail.then(async () => {
      clearTimeout(timer);
      opts.signal.removeEventListener('abort', onAbort);
      if (!waiting) return undefined; // refused or abandoned while waiting: skip the turn
      waiting = false;
      this.embedWaiting--;
      const vectors: number[][] = [];
      for (const text of inputs) {
        opts.signal.throwIfAborted();
        try {
          vectors.push(l2Normalise((await context.getEmbeddingFor(text)).vector));
        } catch (err) {
          throw new EngineError('failed', `${this.router}: embedding failed: ${message(err)}`);
        }
      }
      return { vectors, promptTokens: lengths.reduce((a, b) => a + b, 0) };
    });
    this.embedTail = work.catch(() => undefined);
    return Promise.race([work, gaveUp]) as Promise<EmbedResult>;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const [loading, embedding, modelLoading] = [this.loading, this.embedding, this.modelLoading];
    this.loading = this.embedding = this.modelLoading = null;
    const loaded = await loading?.catch(() => undefined);
    if (loaded) {
      loaded.pool.close(new PoolClosedError('engine closed'));
      await loaded.context.dispose();
    }
    await (await embedding?.catch(() => undefined))?.dispose();
    await (await modelLoading?.catch(() => undefined))?.dispose();
  }

  /** The model file, loaded once for both the chat and the embedding context. */
  private getModel(): Promise<LlamaModel> {
    this.modelLoading ??= getSharedLlama()
      .then((llama) => llama.loadModel({ modelPath: this.opts.path }))
      .catch((err: unknown) => {
        this.modelLoading = null;
        throw err;
      });
    return this.modelLoading;
  }

  private loadEmbedding(): Promise<LlamaEmbeddingContext> {
    if (this.closed) return Promise.reject(new EngineError('failed', `${this.router} is closed`));
    this.embedding ??= this.getModel()
      .then((model) => {
        const contextSize = this.contextSizeFor(model);
        // The whole input is one batch: embeddings pool over every token at once.
        return model.createEmbeddingContext({ contextSize, batchSize: contextSize, threads: this.opts.threads ?? 1 });
      })
      .catch((err: unknown) => {
        this.embedding = null;
        throw new EngineError('failed', `${this.router}: could not load the model for embeddings: ${message(err)}`);
      });
    return this.embedding;
  }

  private load(): Promise<Loaded> {
    if (this.closed) return Promise.reject(new EngineError('failed', `${this.router} is closed`));
    this.loading ??= this.loadModel().catch((err: unknown) => {
      this.loading = null;
      throw new EngineError('failed', `${this.router}: could not load the model: ${message(err)}`);
    });
    return this.loading;
  }

  private async loadModel(): Promise<Loaded> {
    const model = await this.getModel();
    const seqs = this.opts.seqs ?? 1;
    const context = await model.createContext({
      contextSize: this.contextSizeFor(model),
      sequences: seqs,
      threads: this.opts.threads ?? 1,
    });
    const sequences = Array.from({ length: seqs }, () => context.getSequence());
    const wrapper = chatWrapperFor(model);
    const pool = new SlotPool(sequences, this.opts.maxQueue ?? 16, this.opts.queueTimeoutMs ?? DEFAULT_QUEUE_TIMEOUT_MS);
    return { model, context, wrapper, pool };
  }

  private contextSizeFor(model: LlamaModel): number {
    return this.opts.contextSize ?? Math.min(model.trainContextSize || DEFAULT_MAX_CONTEXT, DEFAULT_MAX_CONTEXT);
  }

  /** Tokenizes off the event loop's critical path (tokenize.ts); with `limit`, stops once past it (`complete` false). */
  private async render(loaded: Loaded, messages: readonly EngineMessage[], limit?: number, signal?: AbortSignal): Promise<Prompt & { complete: boolean }> {
    let state: ReturnType<ChatWrapper['generateContextState']>;
    try {
      state = loaded.wrapper.generateContextState({ chatHistory: toChatHistory(messages) });
    } catch (err) {
      throw new EngineError('failed', `${this.router}: could not apply the chat template: ${message(err)}`);
    }
    const { tokens, complete } = await tokenizeYielding(state.contextText, loaded.model.tokenizer, { limit, signal });
    const stopTokens = new Set<Token>();
    const stopStrings: string[] = [];
    for (const trigger of state.stopGenerationTriggers) {
      if (trigger.values.every((v) => typeof v === 'string')) {
        const text = trigger.toString();
        if (text) stopStrings.push(text);
      } else {
        const triggerTokens = trigger.tokenize(loaded.model.tokenizer);
        if (triggerTokens.length === 1) stopTokens.add(triggerTokens[0]);
      }
    }
    return { tokens, stopTokens, stopStrings, complete };
  }

  /** Runs a request, pushing its chunks into `queue`; rejects when it cannot start (before any chunk) or fails. */
  private async produce(req: EngineRequest, queue: AsyncQueue<EngineChunk>, readerGone: AbortSignal): Promise<void> {
    const { params, signal } = req;
    if (!Number.isInteger(params.n) || params.n < 1) throw new EngineError('bad_request', 'n must be a positive integer');
    if (!Number.isInteger(params.max_tokens) || params.max_tokens < 1) {
      throw new EngineError('bad_request', 'max_tokens must be a positive integer');
    }
    const loaded = await this.load();
    const contextSize = loaded.context.contextSize;
    // Tokenizing stops once the prompt cannot fit: the rest would only make the error's count exact.
    const prompt = await this.render(loaded, req.messages, Math.max(0, contextSize - params.max_tokens), signal);
    if (prompt.tokens.length === 0) throw new EngineError('bad_request', 'the prompt is empty');
    if (!prompt.complete) {
      throw new EngineError(
        'context_length',
        `This model's maximum context length is ${contextSize} tokens. However, the messages alone have more than ` +
          `${prompt.tokens.length - 1} tokens, and ${params.max_tokens} were requested for the completion.`,
      );
    }
    if (prompt.tokens.length + params.max_tokens > contextSize) {
      throw new EngineError(
        'context_length',
        `This model's maximum context length is ${contextSize} tokens. However, you requested ` +
          `${prompt.tokens.length + params.max_tokens} tokens (${prompt.tokens.length} in the messages, ` +
          `${params.max_tokens} in the completion).`,
      );
    }

    let seq: LlamaContextSequence;
    try {
      seq = await loaded.pool.acquire(signal, (s) => s.compareContextTokens(prompt.tokens).firstDifferentIndex);
    } catch (err) {
      if (err instanceof QueueFullError) throw new EngineError('capacity', `${this.router} is at capacity: ${err.message}`);
      if (err instanceof PoolClosedError) throw new EngineError('failed', `${this.router} is closed`);
      throw err; // the abort reason
    }
    try {
      signal.throwIfAborted();
      const usage: EngineUsage = { prompt_tokens: prompt.tokens.length, completion_tokens: 0 };
      // Each choice's closing chunk is held back so the very last chunk can also carry the usage.
      let closing: EngineChunk = { choices: [] };
      for (let index = 0; index < params.n; index++) {
        if (index > 0 && (signal.aborted || readerGone.aborted)) break;
        if (index > 0) queue.push(closing);
        const result = await this.generateChoice(loaded, seq, prompt, req, index, queue, readerGone);
        if (index === 0) usage.cached_tokens = result.cachedTokens;
        usage.completion_tokens += result.completionTokens;
        closing = { choices: [{ index, delta: {}, finish_reason: result.finishReason }] };
      }
      queue.push({ ...closing, usage });
    } catch (err) {
      if (err instanceof EngineError || (signal.aborted && err === signal.reason)) throw err;
      throw new EngineError('failed', `${this.router}: generation failed: ${message(err)}`);
    } finally {
      loaded.pool.release(seq);
    }
  }

  private async generateChoice(
    loaded: Loaded,
    seq: LlamaContextSequence,
    prompt: Prompt,
    req: EngineRequest,
    index: number,
    queue: AsyncQueue<EngineChunk>,
    readerGone: AbortSignal,
  ): Promise<ChoiceResult> {
    const { model } = loaded;
    const { params, signal } = req;
    const stopRequested = () => signal.aborted || readerGone.aborted;
    queue.push({ choices: [{ index, delta: { role: 'assistant', content: '' }, finish_reason: null }] });

    // Keep what the sequence already holds of this prompt; at least the last prompt token is evaluated again,
    // because its logits give the first completion token.
    const tokens = prompt.tokens;
    const cachedTokens = Math.min(seq.compareContextTokens(tokens).firstDifferentIndex, tokens.length - 1);
    if (seq.nextTokenIndex > cachedTokens) {
      await seq.eraseContextTokenRanges([{ start: cachedTokens, end: seq.nextTokenIndex }]);
    }
    for (let from = cachedTokens; from < tokens.length - 1; from += PREFILL_SLICE) {
      if (stopRequested()) return { finishReason: 'stop', completionTokens: 0, cachedTokens };
      await seq.evaluateWithoutGeneratingNewTokens(tokens.slice(from, Math.min(from + PREFILL_SLICE, tokens.length - 1)));
    }

    const wantLogprobs = params.logprobs === true;
    const topLogprobs = wantLogprobs ? Math.max(0, Math.min(20, params.top_logprobs ?? 0)) : 0;
    const generated: Token[] = [];
    const penalised = params.repetition_penalty !== undefined || params.frequency_penalty || params.presence_penalty;
    const seed = params.seed !== undefined ? (Math.trunc(params.seed) + index) >>> 0 : randomInt(2 ** 32);
    const outputs = seq.evaluateWithMetadata(
      [tokens[tokens.length - 1]],
      { confidence: wantLogprobs, probabilities: topLogprobs > 0 },
      {
        temperature: params.temperature ?? 1,
        topK: params.top_k ?? 0,
        topP: params.top_p ?? 1,
        minP: params.min_p ?? 0,
        seed,
        repeatPenalty: penalised
          ? {
              punishTokens: () => generated.slice(-PENALTY_WINDOW),
              maxPunishTokens: PENALTY_WINDOW,
              penalty: params.repetition_penalty ?? 1,
              frequencyPenalty: params.frequency_penalty ?? 0,
              presencePenalty: params.presence_penalty ?? 0,
            }
          : undefined,
        yieldEogToken: true,
      },
    );

    const stop = new StopText([...(params.stop ?? []), ...prompt.stopStrings]);
    let decoded = 0; // generated[0..decoded) are already turned into text
    let logprobs: TokenLogprob[] = [];
    // Logprobs travel with the text they produced; at the end, also those of tokens that yielded no text.
    const emit = (text: string, last = false) => {
      if (!text && !(last && logprobs.length > 0)) return;
      const chunk: EngineChunk = { choices: [{ index, delta: { content: text }, finish_reason: null }] };
      if (wantLogprobs) chunk.choices[0].logprobs = { content: logprobs } satisfies ChoiceLogprobs;
      logprobs = [];
      queue.push(chunk);
    };
    let finishReason: FinishReason = 'stop';
    let textEnd = 0; // generated[0..textEnd) are text tokens (the end-of-turn token is not)
    const decodePending = () => model.detokenize(generated.slice(decoded, textEnd), false, generated.slice(Math.max(0, decoded - DECODE_LOOKBEHIND), decoded));

    for await (const out of outputs) {
      generated.push(out.token);
      if (model.isEogToken(out.token) || prompt.stopTokens.has(out.token)) break;
      textEnd = generated.length;
      if (wantLogprobs) {
        // The metadata flags are runtime booleans, so the output type cannot tell which fields are present.
        const meta = out as { confidence?: number; probabilities?: Map<Token, number> };
        logprobs.push(this.logprob(model, generated, meta.confidence, meta.probabilities, topLogprobs));
      }
      const text = decodePending();
      // A character split over several byte tokens decodes to U+FFFD until its last byte arrives.
      if (!text.endsWith('\uFFFD') || textEnd - decoded >= 4) {
        decoded = textEnd;
        emit(stop.push(text));
        if (stop.stopped) break;
      }
      if (generated.length >= params.max_tokens) {
        finishReason = 'length';
        break;
      }
      if (stopRequested()) break;
    }
    if (!stop.stopped) {
      const rest = decoded < textEnd ? stop.push(decodePending()) : '';
      emit(rest + stop.flush(), true);
    }
    return { finishReason, completionTokens: generated.length, cachedTokens };
  }

  private logprob(
    model: LlamaModel,
    generated: readonly Token[],
    confidence: number | undefined,
    probabilities: Map<Token, number> | undefined,
    top: number,
  ): TokenLogprob {
    const last = generated.length - 1;
    const before = generated.slice(Math.max(0, last - DECODE_LOOKBEHIND), last);
    const entry = (token: Token, p: number) => {
      const text = model.detokenize([token], false, before);
      return { token: text, logprob: p > 0 ? Math.max(MIN_LOGPROB, Math.log(p)) : MIN_LOGPROB, bytes: [...Buffer.from(text, 'utf8')] };
    };
    const result: TokenLogprob = { ...entry(generated[last], confidence ?? 0), top_logprobs: [] };
    if (probabilities && top > 0) {
      for (const [token, p] of probabilities) {
        if (result.top_logprobs!.length >= top) break;
        result.top_logprobs!.push(entry(token, p));
      }
    }
    return result;
  }
}
