// A chat stream's typed events → the Responses API's typed stream events, in the order OpenAI's clients expect:
// response.created and response.in_progress; per output item `output_item.added`, its parts and deltas, their
// `.done` events and `output_item.done`; then response.completed (response.incomplete when cut at the token limit)
// with the whole response and usage; a failure midway is an `error` event. Each event carries its sequence_number. The HTTP layer alone writes them as SSE
// (lib/responses/sse.ts).
import type { SearchResult } from '../augment/types.ts';
import type { ChatEvent, ChatStream } from '../chat/events.ts';
import type { FinishReason, ToolCall } from '../engines/text/types.ts';
import {
  citationAnnotations,
  fallbackCallId,
  type FunctionCallItem,
  functionCallId,
  type MessageItem,
  messageId,
  type OutputItem,
  type ReasoningItem,
  type ResponseHead,
  reasoningId,
  responseObject,
  statusOf,
} from './output.ts';

/** One Responses stream event: its `type`, its `sequence_number` and the type's own fields. */
export type ResponsesEvent = { type: string; sequence_number: number } & Record<string, unknown>;

/** Each step is the events of one chat step; the stream ends after `response.completed` or `error`. */
export type ResponsesStream = AsyncGenerator<ResponsesEvent[], void, undefined>;

/** Snapshots: an event must not change when the item it shows grows later. */
const copy = <T>(v: T): T => structuredClone(v);

interface OpenItem {
  index: number;
  item: ReasoningItem | MessageItem;
}

class ResponsesStreamer {
  private seq = 0;
  private readonly head: ResponseHead;
  private readonly output: OutputItem[] = [];
  /** The reasoning or message item receiving deltas. */
  private open: OpenItem | undefined;
  /** Function calls by the chat tool-call index. */
  private readonly calls = new Map<number, { index: number; item: FunctionCallItem }>();
  private finish: FinishReason | null = null;
  private out: ResponsesEvent[] = [];

  constructor(head: ResponseHead) {
    this.head = head;
  }

  private emit(type: string, fields: Record<string, unknown>): void {
    this.out.push({ type, sequence_number: this.seq++, ...fields });
  }

  private take(): ResponsesEvent[] {
    const events = this.out;
    this.out = [];
    return events;
  }

  start(): ResponsesEvent[] {
    const response = responseObject(this.head, 'in_progress', { output: [] });
    this.emit('response.created', { response });
    this.emit('response.in_progress', { response: copy(response) });
    return this.take();
  }

  private addItem(item: OutputItem): number {
    const index = this.output.length;
    this.output.push(item);
    this.emit('response.output_item.added', { output_index: index, item: copy(item) });
    return index;
  }

  /** An item id, unique in the response: a model that goes back to thinking after it spoke opens a second one. */
  private idFor(type: OutputItem['type'], base: string): string {
    const n = this.output.filter((i) => i.type === type).length;
    return n ? `${base}_${n}` : base;
  }

  private openReasoning(): OpenItem {
    const item: ReasoningItem = { type: 'reasoning', id: this.idFor('reasoning', reasoningId(this.head.requestId)), summary: [] };
    const index = this.addItem(item);
    const part = { type: 'summary_text' as const, text: '' };
    item.summary.push(part);
    this.emit('response.reasoning_summary_part.added', { item_id: item.id, output_index: index, summary_index: 0, part: copy(part) });
    return { index, item };
  }

  private openMessage(): OpenItem {
    const item: MessageItem = {
      type: 'message',
      id: this.idFor('message', messageId(this.head.requestId)),
      status: 'in_progress',
      role: 'assistant',
      content: [],
    };
    const index = this.addItem(item);
    const part = { type: 'output_text' as const, text: '', annotations: [], logprobs: [] as [] };
    item.content.push(part);
    this.emit('response.content_part.added', { item_id: item.id, output_index: index, content_index: 0, part: copy(part) });
    return { index, item };
  }

  /** Ends the item receiving deltas (the message once the citations are known). */
  private closeOpen(sources: SearchResult[] = []): void {
    const open = this.open;
    if (!open) return;
    this.open = undefined;
    const { index, item } = open;
    if (item.type === 'reasoning') {
      const part = item.summary[0];
      this.emit('response.reasoning_summary_text.done', { item_id: item.id, output_index: index, summary_index: 0, text: part.text });
      this.emit('response.reasoning_summary_part.done', { item_id: item.id, output_index: index, summary_index: 0, part: copy(part) });
    } else {
      const part = item.content[0];
      part.annotations = citationAnnotations(part.text, sources);
      item.status = this.finish === 'length' ? 'incomplete' : 'completed';
      this.emit('response.output_text.done', { item_id: item.id, output_index: index, content_index: 0, text: part.text, logprobs: [] });
      this.emit('response.content_part.done', { item_id: item.id, output_index: index, content_index: 0, part: copy(part) });
    }
    this.emit('response.output_item.done', { output_index: index, item: copy(item) });
  }

  private closeCalls(): void {
    for (const { index, item } of this.calls.values()) {
      item.status = 'completed';
      this.emit('response.function_call_arguments.done', { item_id: item.id, output_index: index, name: item.name, arguments: item.arguments });
      this.emit('response.output_item.done', { output_index: index, item: copy(item) });
    }
    this.calls.clear();
  }

  private toolCall(c: ToolCall): void {
    const at = c.index ?? 0;
    let call = this.calls.get(at);
    if (!call) {
      const n = this.output.filter((i) => i.type === 'function_call').length;
      const item: FunctionCallItem = {
        type: 'function_call',
        id: functionCallId(this.head.requestId, n),
        call_id: c.id || fallbackCallId(this.head.requestId, n),
        name: c.function?.name ?? '',
        arguments: '',
        status: 'in_progress',
      };
      call = { index: this.addItem(item), item };
      this.calls.set(at, call);
    }
    const delta = c.function?.arguments;
    if (delta) {
      call.item.arguments += delta;
      this.emit('response.function_call_arguments.delta', { item_id: call.item.id, output_index: call.index, delta });
    }
  }

  /** The Responses events of one chat step. */
  step(events: readonly ChatEvent[]): ResponsesEvent[] {
    for (const ev of events) {
      switch (ev.type) {
        case 'delta':
          if (ev.index !== 0) break; // n is 1 on this API
          if (ev.reasoning) {
            if (this.open?.item.type !== 'reasoning') {
              this.closeOpen();
              this.open = this.openReasoning();
            }
            const item = this.open.item as ReasoningItem;
            item.summary[0].text += ev.reasoning;
            this.emit('response.reasoning_summary_text.delta', { item_id: item.id, output_index: this.open.index, summary_index: 0, delta: ev.reasoning });
          }
          if (ev.content) {
            if (this.open?.item.type !== 'message') {
              this.closeOpen();
              this.open = this.openMessage();
            }
            const item = this.open.item as MessageItem;
            item.content[0].text += ev.content;
            this.emit('response.output_text.delta', { item_id: item.id, output_index: this.open.index, content_index: 0, delta: ev.content, logprobs: [] });
          }
          break;
        case 'tool_calls':
          if (ev.index !== 0) break;
          if (this.open?.item.type === 'reasoning') this.closeOpen();
          for (const c of ev.calls) this.toolCall(c);
          break;
        case 'finish':
          if (ev.index === 0) this.finish = ev.reason;
          break;
        case 'citations':
          break; // the usage event's echo carries them too, in time for the annotations
        case 'usage': {
          const sources = (ev.params.web_search_citations as SearchResult[] | undefined) ?? [];
          // An answer of nothing but tool calls has no message; one of nothing at all has an empty one.
          if (!this.open && !this.output.some((i) => i.type === 'message') && !this.calls.size) this.open = this.openMessage();
          this.closeOpen(sources);
          this.closeCalls();
          const { status, incomplete_details } = statusOf(this.finish);
          const response = responseObject(this.head, status, { output: copy(this.output), usage: ev.usage, incomplete_details });
          this.emit(status === 'incomplete' ? 'response.incomplete' : 'response.completed', { response });
          break;
        }
        case 'error':
          this.emit('error', { code: 'upstream_error', message: ev.message, param: null });
          break;
      }
    }
    return this.take();
  }
}

/** The Responses stream of a chat stream (whose first engine chunk has already arrived). */
export async function* responsesStream(head: ResponseHead, chat: ChatStream): ResponsesStream {
  const streamer = new ResponsesStreamer(head);
  yield streamer.start();
  try {
    for await (const step of chat) {
      const events = streamer.step(step);
      if (events.length) yield events;
    }
  } finally {
    // A client that went away ends the chat stream too, which bills what was produced.
    await chat.return();
  }
}
