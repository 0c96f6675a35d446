// Chat stream events → the OpenAI streaming wire format: one `chat.completion.chunk` per step of events (one
// JSON.stringify each), the in-band error chunk, and `[DONE]` after the step that ends the stream. The only place
// our chat SSE text is made.
import type { ChatEvent, StreamHead } from './events.ts';
import type { ChoiceLogprobs, ToolCall } from '../engines/text/types.ts';
import { costRecord, usageRecord } from './output.ts';

interface WireChoice {
  index: number;
  delta: { role?: 'assistant'; content?: string; reasoning_content?: string; tool_calls?: ToolCall[] };
  finish_reason: string | null;
  logprobs?: ChoiceLogprobs;
}

export const SSE_DONE = 'data: [DONE]\n\n';

const MID_STREAM_FAILURE = { type: 'server_error', code: 'upstream_error', param: null };

// Every chunk of a stream repeats its head: its text up to `"choices":` is made once per stream, and a step that
// adds no other field (nearly all of them: deltas) is that prefix, its choices and `}` (the same bytes as stringifying
// the whole chunk, without re-encoding the head per token).
const prefixes = new WeakMap<StreamHead, string>();
function prefixOf(head: StreamHead): string {
  let prefix = prefixes.get(head);
  if (prefix === undefined) {
    const text = JSON.stringify({ id: head.id, object: 'chat.completion.chunk', created: head.created, model: head.model, choices: 0 });
    prefix = `data: ${text.slice(0, -2)}`;
    prefixes.set(head, prefix);
  }
  return prefix;
}

/** Whether a step carries output: anything but a delta that only names the role (or is empty). */
export const chatStepHasOutput = (events: readonly ChatEvent[]): boolean => events.some((ev) => ev.type !== 'delta' || !!ev.content || !!ev.reasoning);

/** One step of a chat stream as its SSE text: `data: {…}\n\n`, followed by `data: [DONE]\n\n` when the step ends the stream (usage or error). */
export function chatSseEvent(head: StreamHead, events: readonly ChatEvent[]): string {
  const choices: WireChoice[] = [];
  // The whole chunk object only for the steps that carry more than choices.
  let chunk: Record<string, unknown> | undefined;
  const full = () => (chunk ??= { id: head.id, object: 'chat.completion.chunk', created: head.created, model: head.model, choices });
  let choice: WireChoice | undefined;
  let done = false;
  for (const ev of events) {
    switch (ev.type) {
      case 'delta':
      case 'tool_calls':
      case 'finish':
        if (choice?.index !== ev.index) choices.push((choice = { index: ev.index, delta: {}, finish_reason: null }));
        if (ev.type === 'delta') {
          if (ev.role) choice.delta.role = ev.role;
          if (ev.content) choice.delta.content = ev.content;
          if (ev.reasoning) choice.delta.reasoning_content = ev.reasoning;
          if (ev.logprobs) choice.logprobs = ev.logprobs;
        } else if (ev.type === 'tool_calls') choice.delta.tool_calls = ev.calls;
        else choice.finish_reason = ev.reason;
        break;
      case 'citations':
        full()[head.paramsKey] = { web_search_citations: ev.results };
        break;
      case 'usage':
        done = true;
        Object.assign(full(), { usage: usageRecord(ev.usage), cost: costRecord(ev.cost), [head.paramsKey]: ev.params });
        break;
      case 'error':
        return `data: ${JSON.stringify({ error: { message: ev.message, ...MID_STREAM_FAILURE } })}\n\n${SSE_DONE}`;
    }
  }
  const text = chunk === undefined ? `${prefixOf(head)}${JSON.stringify(choices)}}\n\n` : `data: ${JSON.stringify(full())}\n\n`;
  return done ? text + SSE_DONE : text;
}
