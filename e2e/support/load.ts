// One chat request of a load against a server process, as the crash and graceful-stop tests send them: every other
// one streamed, every third one slow, and what the client actually got: a complete answer (a non-stream 200 with its
// body, or a stream that reached [DONE] without an error) with its request id and cost, or how it ended.
import { sseEvents } from './harness.ts';

export interface LoadOutcome {
  /** HTTP status, when response headers arrived. */
  status?: number;
  complete: boolean;
  requestId?: string;
  cost?: { usd: number; diem: number };
  /** When the client had the whole response. */
  at?: number;
  error?: string;
}

export async function loadChat(base: string, key: string, model: string, i: number): Promise<LoadOutcome> {
  const stream = i % 2 === 0;
  const slow = i % 3 === 0 ? ' [[slow:20]]' : '';
  let res: Response;
  try {
    res = await fetch(`${base}/api/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({ model, stream, messages: [{ role: 'user', content: `Request ${i} [[tokens:${4 + (i % 12)}]]${slow}` }] }),
    });
  } catch (e) {
    return { complete: false, error: String((e as Error).cause ?? e) };
  }
  let text: string;
  try {
    text = await res.text();
  } catch (e) {
    return { status: res.status, complete: false, error: `body cut: ${String((e as Error).cause ?? e)}` };
  }
  const at = Date.now();
  if (res.status !== 200) return { status: res.status, complete: false, error: text };
  if (!stream) {
    const body = JSON.parse(text);
    return { status: 200, complete: true, requestId: body.id.replace(/^chatcmpl-/, ''), cost: body.cost, at };
  }
  const events = sseEvents(text);
  const usage = events.find((e) => e !== '[DONE]' && e.usage);
  return {
    status: 200,
    complete: events.at(-1) === '[DONE]' && !events.some((e) => e !== '[DONE]' && e.error),
    requestId: events[0]?.id?.replace(/^chatcmpl-/, ''),
    cost: usage?.cost,
    at,
  };
}
