// A minimal Server-Sent Events reader over fetch's ReadableStream (EventSource cannot send our headers or be
// aborted per message). Yields the parsed JSON of each event's data; comments (keep-alives) are skipped.
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

/** Reads a text/event-stream body to its end, calling onEvent for each GenerationEvent. */
export async function readGenerationEvents(body: ReadableStream<Uint8Array>, onEvent: (ev: GenerationEvent) => void): Promise<void> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const parser = new SseParser();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      for (const data of parser.push(decoder.decode(value, { stream: true }))) {
        const ev = parseGenerationEvent(data);
        if (ev) onEvent(ev);
      }
    }
  } finally {
    reader.releaseLock();
  }
}
