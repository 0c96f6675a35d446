// Responses stream events → SSE text: `event: <type>` and `data: <the event as JSON>` per event (one JSON.stringify
// each), as OpenAI's Responses API writes them and its clients read them; `data: [DONE]` after the event that ends
// the stream (response.completed, response.incomplete, or an error), as the public API adds. The only place Responses
// SSE text is made.
import type { ResponsesEvent } from './stream.ts';
import { SSE_DONE } from '../chat/sse.ts';

const ENDS = new Set(['response.completed', 'response.incomplete', 'response.failed', 'error']);

/** One step of a Responses stream as its SSE text. */
export function responsesSseEvents(events: readonly ResponsesEvent[]): string {
  let text = '';
  for (const ev of events) {
    text += `event: ${ev.type}\ndata: ${JSON.stringify(ev)}\n\n`;
    if (ENDS.has(ev.type)) text += SSE_DONE;
  }
  return text;
}

/** Whether a step carries the model's output (a text, reasoning or arguments delta) or ends the stream. */
export const responsesStepHasOutput = (events: readonly ResponsesEvent[]): boolean => events.some((ev) => ev.type.endsWith('.delta') || ENDS.has(ev.type));
