// The Response object (`object: "response"`) built from what the chat pipeline produced: reasoning, the message and
// function calls as output items, usage in the Responses names, and the request's settings echoed as OpenAI does.
// Item ids carry the request id (the CF-RAY header), like chat's `chatcmpl-` ids.
import type { SearchResult } from '../augment/types.ts';
import type { EngineUsage, FinishReason } from '../engines/text/types.ts';
import type { ResponsesRequest } from './schema.ts';

export interface ResponseHead {
  /** Our request id: `resp_<id>`, and every item id, carry it. */
  requestId: string;
  /** Unix seconds. */
  createdAt: number;
  /** The model that answered. */
  model: string;
  request: ResponsesRequest;
}

export type Status = 'in_progress' | 'completed' | 'incomplete' | 'failed';

export interface UrlCitation {
  type: 'url_citation';
  url: string;
  title: string;
  start_index: number;
  end_index: number;
}

export interface OutputText {
  type: 'output_text';
  text: string;
  annotations: UrlCitation[];
  logprobs: [];
}

export interface ReasoningItem {
  type: 'reasoning';
  id: string;
  summary: { type: 'summary_text'; text: string }[];
}

export interface MessageItem {
  type: 'message';
  id: string;
  status: 'in_progress' | 'completed' | 'incomplete';
  role: 'assistant';
  content: OutputText[];
}

export interface FunctionCallItem {
  type: 'function_call';
  id: string;
  call_id: string;
  name: string;
  arguments: string;
  status: 'in_progress' | 'completed' | 'incomplete';
}

export type OutputItem = ReasoningItem | MessageItem | FunctionCallItem;

export const responseId = (requestId: string) => `resp_${requestId}`;
export const reasoningId = (requestId: string) => `rs_${requestId}`;
export const messageId = (requestId: string) => `msg_${requestId}`;
export const functionCallId = (requestId: string, i: number) => `fc_${requestId}_${i}`;
/** A call id for an engine that gave none: unique within the response, stable for the request. */
export const fallbackCallId = (requestId: string, i: number) => `call_${requestId}_${i}`;

/** Usage in the Responses names. */
export function responsesUsage(u: EngineUsage) {
  return {
    input_tokens: u.prompt_tokens,
    input_tokens_details: { cached_tokens: u.cached_tokens ?? 0 },
    output_tokens: u.completion_tokens,
    output_tokens_details: { reasoning_tokens: u.reasoning_tokens ?? 0 },
    total_tokens: u.prompt_tokens + u.completion_tokens,
  };
}

/** `^1^` / `^1,2^` markers (the caret citations the pipeline writes) as url_citation annotations of their sources. */
export function citationAnnotations(text: string, sources: SearchResult[]): UrlCitation[] {
  if (!sources.length) return [];
  const out: UrlCitation[] = [];
  for (const m of text.matchAll(/\^(\d{1,2}(?:,\s?\d{1,2})*)\^/g)) {
    for (const n of m[1].split(',').map((x) => Number(x.trim()))) {
      const s = sources[n - 1];
      if (s) out.push({ type: 'url_citation', url: s.url, title: s.title, start_index: m.index, end_index: m.index + m[0].length });
    }
  }
  return out;
}

/** What a finish reason makes of the response: truncated answers are `incomplete`, with the reason OpenAI gives. */
export function statusOf(finish: FinishReason | null | undefined): { status: Status; incomplete_details: { reason: string } | null } {
  if (finish === 'length') return { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } };
  if (finish === 'content_filter') return { status: 'incomplete', incomplete_details: { reason: 'content_filter' } };
  return { status: 'completed', incomplete_details: null };
}

/** The request's tools in the Responses nesting (hosted tools that are not offered here are left out). */
function toolsEcho(req: ResponsesRequest) {
  const out: Record<string, unknown>[] = [];
  for (const t of req.tools ?? []) {
    if (t.type === 'function') {
      const f = 'function' in t ? t.function : t;
      out.push({ type: 'function', name: f.name, description: f.description ?? null, parameters: f.parameters ?? null, strict: f.strict ?? null });
    } else if (t.type === 'web_search' || t.type === 'x_search') out.push({ type: t.type });
  }
  return out;
}

function toolChoiceEcho(req: ResponsesRequest) {
  const c = req.tool_choice;
  if (!c) return 'auto';
  return typeof c === 'string' ? c : { type: 'function', name: c.function.name };
}

/** The whole Response object; `output` and `usage` as far as they are known. */
export function responseObject(
  head: ResponseHead,
  status: Status,
  rest: { output: OutputItem[]; usage?: EngineUsage; incomplete_details?: { reason: string } | null; error?: { code: string; message: string } },
): Record<string, unknown> {
  const req = head.request;
  return {
    id: responseId(head.requestId),
    object: 'response',
    created_at: head.createdAt,
    status,
    background: false,
    // Present only when there is one: the public document types `error` as an object, and OpenAI's clients read a
    // missing error as none.
    ...(rest.error ? { error: rest.error } : {}),
    incomplete_details: rest.incomplete_details ?? null,
    instructions: req.instructions ?? null,
    max_output_tokens: req.max_output_tokens ?? null,
    model: head.model,
    output: rest.output,
    parallel_tool_calls: req.parallel_tool_calls ?? true,
    previous_response_id: null,
    reasoning: { effort: req.reasoning?.effort ?? null, summary: req.reasoning?.summary ?? null },
    store: false,
    temperature: req.temperature ?? null,
    text: { format: req.text?.format ?? { type: 'text' }, verbosity: req.text?.verbosity ?? null },
    tool_choice: toolChoiceEcho(req),
    tools: toolsEcho(req),
    top_p: req.top_p ?? null,
    truncation: 'disabled',
    usage: rest.usage ? responsesUsage(rest.usage) : null,
    user: req.user ?? null,
    metadata: req.metadata ?? {},
  };
}

interface ChatMessageOut {
  content: string | null;
  reasoning_content: string | null;
  tool_calls: { id?: string; function?: { name?: string; arguments?: string } }[];
}

/** The output items of a finished chat choice: reasoning, then the message (unless only tools were called), then calls. */
export function outputItems(requestId: string, message: ChatMessageOut, finish: FinishReason | null, sources: SearchResult[]): OutputItem[] {
  const items: OutputItem[] = [];
  if (message.reasoning_content)
    items.push({ type: 'reasoning', id: reasoningId(requestId), summary: [{ type: 'summary_text', text: message.reasoning_content }] });
  const text = message.content ?? '';
  if (text || !message.tool_calls.length) {
    items.push({
      type: 'message',
      id: messageId(requestId),
      status: finish === 'length' ? 'incomplete' : 'completed',
      role: 'assistant',
      content: [{ type: 'output_text', text, annotations: citationAnnotations(text, sources), logprobs: [] }],
    });
  }
  for (const [i, c] of message.tool_calls.entries()) {
    items.push({
      type: 'function_call',
      id: functionCallId(requestId, i),
      call_id: c.id || fallbackCallId(requestId, i),
      name: c.function?.name ?? '',
      arguments: c.function?.arguments ?? '',
      status: 'completed',
    });
  }
  return items;
}
