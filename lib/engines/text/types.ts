// The engine interface. Every engine (llama.cpp in process, any OpenAI-compatible upstream) speaks the OpenAI
// chat wire shapes below, so the chat pipeline post-processes one format whatever served the request.
import type { Vector } from './vectors.ts';

export interface ToolCall {
  index?: number;
  id?: string;
  type?: 'function';
  function?: { name?: string; arguments?: string };
}

export interface TokenLogprob {
  token: string;
  logprob: number;
  bytes?: number[] | null;
  top_logprobs?: { token: string; logprob: number; bytes?: number[] | null }[];
}

export interface ChoiceLogprobs {
  content: TokenLogprob[] | null;
}

export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter';

export interface EngineUsage {
  prompt_tokens: number;
  completion_tokens: number;
  /** Prompt tokens served from the engine's prefix cache, when it reports them. */
  cached_tokens?: number;
  reasoning_tokens?: number;
}

/** A message as sent to an engine: OpenAI chat message shape (content already normalised by the pipeline). */
export interface EngineMessage {
  role: 'system' | 'developer' | 'user' | 'assistant' | 'tool';
  content: string | Array<Record<string, unknown>> | null;
  name?: string;
  tool_calls?: ToolCall[];
  tool_call_id?: string;
  reasoning_content?: string | null;
  [extra: string]: unknown;
}

/** Sampling and tool options forwarded to the engine (OpenAI field names). */
export interface EngineParams {
  temperature?: number;
  top_p?: number;
  top_k?: number;
  min_p?: number;
  max_tokens: number;
  stop?: string[];
  n: number;
  seed?: number;
  frequency_penalty?: number;
  presence_penalty?: number;
  repetition_penalty?: number;
  logprobs?: boolean;
  top_logprobs?: number;
  tools?: unknown[];
  tool_choice?: unknown;
  parallel_tool_calls?: boolean;
  response_format?: unknown;
  reasoning_effort?: string;
  /** Ask a reasoning model not to think (mapped per engine). */
  disable_thinking?: boolean;
  /** Let a search-native upstream search the web and X itself (`enable_x_search`). */
  native_search?: boolean;
  user?: string;
}

export interface EngineRequest {
  requestId: string;
  /** The model name the engine knows (the upstream's served name, or the catalogue id). */
  model: string;
  messages: EngineMessage[];
  params: EngineParams;
  /** Routing hint: requests with one key go to the same replica. */
  cacheKey?: string;
  signal: AbortSignal;
}

export interface EngineChoice {
  index: number;
  message: {
    role: 'assistant';
    content: string | null;
    reasoning_content?: string | null;
    tool_calls?: ToolCall[];
  };
  finish_reason: FinishReason | null;
  logprobs?: ChoiceLogprobs | null;
}

export interface EngineCompletion {
  choices: EngineChoice[];
  usage?: EngineUsage;
}

export interface EngineChunkChoice {
  index: number;
  delta: { role?: 'assistant'; content?: string | null; reasoning_content?: string | null; tool_calls?: ToolCall[] };
  finish_reason: FinishReason | null;
  logprobs?: ChoiceLogprobs | null;
}

export interface EngineChunk {
  choices: EngineChunkChoice[];
  usage?: EngineUsage;
}

/** Why an engine failed; the pipeline maps it to the wire error (500 / 503 / 504 / 400). */
export type EngineFailure = 'failed' | 'capacity' | 'timeout' | 'bad_request' | 'context_length';

export class EngineError extends Error {
  readonly kind: EngineFailure;
  constructor(kind: EngineFailure, message: string) {
    super(message);
    this.kind = kind;
  }
}

export interface EmbedOptions {
  requestId: string;
  /** The model name the engine knows (the upstream's served name, or the catalogue id). */
  model: string;
  /** Asked of engines that can shorten vectors themselves; the pipeline truncates whatever comes back longer. */
  dimensions?: number;
  signal: AbortSignal;
}

export interface EmbedResult {
  /** One vector per input, in input order. */
  vectors: Vector[];
  /** Input tokens, when the engine reports them. */
  promptTokens?: number;
}

export interface Engine {
  /** Names the backend that served a request (the `x-service-model-router` header). */
  readonly router: string;
  complete(req: EngineRequest): Promise<EngineCompletion>;
  /** Chunks as the engine produces them; usage (when known) on the last chunk. Aborts with req.signal. */
  stream(req: EngineRequest): AsyncIterable<EngineChunk>;
  /**
   * Count prompt tokens exactly when the engine can (used for the credit estimate); undefined when it cannot. With
   * `limit`, the engine may stop counting once past it and return any count above it (the prompt cannot fit).
   * Counting must not hold the event loop for long (a huge prompt is counted in slices).
   */
  countTokens?(messages: EngineMessage[], opts?: { limit?: number }): Promise<number | undefined>;
  /** Embeds each input (embedding models only). An input beyond the model's context → EngineError 'context_length'. */
  embed?(inputs: string[], opts: EmbedOptions): Promise<EmbedResult>;
  close?(): Promise<void>;
}
