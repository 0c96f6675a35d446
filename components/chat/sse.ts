// A minimal Server-Sent Events reader over fetch's ReadableStream (EventSource cannot send our headers or be
// aborted per message). Yields the parsed JSON of each event's data; comments (keep-alives) are skipped.
import { AppApiError, type CallArgs, callStream, requestFailed } from '../api/client.ts';
import type { AppReply, AppRouteKey } from '@/lib/http/app-route-map.ts';
import type { GenerationEvent } from '@/lib/wire.ts';

/** Splits SSE text into event data payloads; feed chunks, get complete events back. */
export class SseParser {
  #buffer = '';

  push(chunk: string): string[] {
    this.#buffer += chunk.replace(/\r\n?/g, '\n');
    const out: string[] = [];
    let end: number;
    while ((end = this.#buffer.indexOf('\n\n')) !== -1) {
      const block = this.#buffer.slice(0, end);
      this.#buffer = this.#buffer.slice(end + 2);
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('data:')) data.push(line.slice(line.startsWith('data: ') ? 6 : 5));
      }
      if (data.length) out.push(data.join('\n'));
    }
    return out;
  }
}

export function parseGenerationEvent(data: string): GenerationEvent | null {
  try {
    const ev = JSON.parse(data) as GenerationEvent;
    return ev && typeof ev === 'object' && typeof ev.type === 'string' ? ev : null;
  } catch {
    return null;
  }
}

/** The data of each event of a text/event-stream body, one at a time. */
class SseReader {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #decoder = new TextDecoder();
  readonly #parser = new SseParser();
  #queue: string[] = [];

  constructor(body: ReadableStream<Uint8Array>) {
    this.#reader = body.getReader();
  }

  /** The next event's data, or undefined at the end of the body. */
  async next(): Promise<string | undefined> {
    while (!this.#queue.length) {
      const { value, done } = await this.#reader.read();
      if (done) return undefined;
      this.#queue = this.#parser.push(this.#decoder.decode(value, { stream: true }));
    }
    return this.#queue.shift();
  }

  /** Reads to the end, calling onEvent for each GenerationEvent. */
  async each(onEvent: (ev: GenerationEvent) => void): Promise<void> {
    try {
      for (let data = await this.next(); data !== undefined; data = await this.next()) {
        const ev = parseGenerationEvent(data);
        if (ev) onEvent(ev);
      }
    } finally {
      this.#reader.releaseLock();
    }
  }

  cancel(): void {
    this.#reader.cancel().catch(() => undefined);
  }
}

/** Reads a text/event-stream body to its end, calling onEvent for each GenerationEvent. */
export function readGenerationEvents(body: ReadableStream<Uint8Array>, onEvent: (ev: GenerationEvent) => void): Promise<void> {
  return new SseReader(body).each(onEvent);
}

/** A turn answered as a stream: the turn (its first event), then the answer's events for whoever follows it. */
export interface TurnStream<T> {
  turn: T;
  /** Reads the answer's events to the end of the response. */
  events(onEvent: (ev: GenerationEvent) => void): Promise<void>;
  /** Lets the response go unread. */
  cancel(): void;
}

/** Reads a turn's first event from its streamed answer (POST …/messages with Accept: text/event-stream). */
export async function openTurnStream<T>(res: Response): Promise<TurnStream<T>> {
  // A body that does not begin with the turn is an answer this client cannot read: said as a failed request.
  const unreadable = () => new AppApiError(res.status, { error: requestFailed(res.status) });
  if (!res.body) throw unreadable();
  const reader = new SseReader(res.body);
  const data = await reader.next();
  const first = data === undefined ? null : (parseGenerationEvent(data) as unknown as { type?: string; turn?: T } | null);
  if (first?.type !== 'turn' || !first.turn) {
    reader.cancel();
    throw unreadable();
  }
  return { turn: first.turn, events: (onEvent) => reader.each(onEvent), cancel: () => reader.cancel() };
}

/** Sends a turn asking for its events: the turn, typed as its route's JSON answer, then the answer's events. */
export async function callTurn<K extends AppRouteKey>(route: K, ...args: CallArgs<K>): Promise<TurnStream<AppReply<K>>> {
  return openTurnStream<AppReply<K>>(await callStream(route, ...args));
}
