// What a streamed chat completion produces, as typed events: the pipeline yields them, the HTTP layer alone turns
// them into SSE text (lib/chat/sse.ts), and the browser app's local client maps them to its own events without
// any text in between.
import type { Amount } from '../billing/money.ts';
import type { SearchResult } from '../augment/types.ts';
import type { ChoiceLogprobs, EngineUsage, FinishReason, ToolCall } from '../engines/text/types.ts';

/** Text a choice produced: its answer and its reasoning (already split from `<think>`, citations rewritten). */
export interface DeltaEvent {
  type: 'delta';
  /** The choice (0 unless the request asked for n > 1). */
  index: number;
  /** Set on the choice's first delta. */
  role?: 'assistant';
  content?: string;
  reasoning?: string;
  /** The logprobs of the tokens in this delta, when the request asked for them. */
  logprobs?: ChoiceLogprobs;
}

/** Tool-call fragments of a choice (indexes already shifted past the search-documents call when one was sent). */
export interface ToolCallsEvent {
  type: 'tool_calls';
  index: number;
  calls: ToolCall[];
}

/** A choice is complete. */
export interface FinishEvent {
  type: 'finish';
  index: number;
  reason: FinishReason;
}

/** The web search results (or scraped pages) the answer may cite, before the model's output. */
export interface CitationsEvent {
  type: 'citations';
  results: SearchResult[];
}

/** The stream is complete: what was used, what it cost, and the service parameters in effect. */
export interface UsageEvent {
  type: 'usage';
  usage: EngineUsage;
  /** The charge, in micro-units. */
  cost: Amount;
  /** The service-parameters echo, keys already in the wire's names (web_search_citations included). */
  params: Record<string, unknown>;
}

/** The engine failed after output began; what came before stays and is billed. */
export interface ErrorEvent {
  type: 'error';
  message: string;
}

export type ChatEvent = DeltaEvent | ToolCallsEvent | FinishEvent | CitationsEvent | UsageEvent | ErrorEvent;

/**
 * A streamed completion: each step is the events of one engine chunk (the wire writes one chunk per step). Within a
 * step a choice's events come together, in the order delta, tool_calls, finish. The stream ends after a step holding
 * `usage` (it completed) or `error` (it failed midway); one that ends without either was aborted by the caller.
 */
export type ChatStream = AsyncGenerator<ChatEvent[], void, undefined>;

/** What every chunk of a streamed completion repeats on the wire. */
export interface StreamHead {
  /** `chatcmpl-<request id>`. */
  id: string;
  /** Unix seconds. */
  created: number;
  model: string;
  /** The wire name of the service-parameters object (`service_parameters`, or the configured wire word's). */
  paramsKey: string;
}
