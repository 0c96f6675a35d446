// An /api/app route's answer as server-sent events (a generation's live stream): the handler gives typed events to a
// sink and never writes SSE itself. Two readers can take them, once: the HTTP layer (lib/http/app.ts) writes each
// event to the node response as it comes, with no Web stream between; anything else (a test calling the handler)
// reads the Response's body, a Web stream fed from the same events.
//
// The source begins when the reply is made, not when it is read, and keeps what it sends until a reader takes it: a
// generation's snapshot and subscription are one synchronous step in the handler, so no event can fall between them
// however late the reader comes.

import { SSE_HEADERS } from './respond.ts';

/** Where a handler's events go. */
export interface EventSink<E> {
  send(e: E): void;
  /** Ends the stream (after the last event). */
  close(): void;
  /** False once closed, by the source or because the reader went away. */
  readonly open: boolean;
}

/** Starts a source of events; what it returns is called once the stream ends, however it ends. */
export type EventBegin<E> = (out: EventSink<E>) => void | (() => void);

/** The events of a reply, for the one reader that takes them. */
export interface EventFeed {
  /**
   * Takes the stream: `write` gets each frame (SSE text: what was sent before at once, then each as it comes, and a
   * keep-alive comment every heartbeat), `end` is called once the source closes. Returns `stop`: the reader went away.
   */
  attach(write: (frame: string) => void, end: () => void): () => void;
}

const KEEP_ALIVE = ': keep-alive\n\n';
const frameOf = (e: unknown) => `data: ${JSON.stringify(e)}\n\n`;

const FEEDS = new WeakMap<Response, EventFeed>();

/**
 * A 200 of server-sent events: each event one `data:` line of JSON, and a comment every `heartbeatMs` so proxies with
 * idle timeouts do not cut a long silence (a model thinking).
 */
export function eventReply<E>(heartbeatMs: number, begin: EventBegin<E>): Response {
  let open = true;
  let attached = false;
  let pending: string[] = [];
  let write: ((frame: string) => void) | undefined;
  let end: (() => void) | undefined;
  let cleanup: (() => void) | undefined;
  let beat: NodeJS.Timeout | undefined;
  const stop = () => {
    if (!open) return;
    open = false;
    if (beat) clearInterval(beat);
    cleanup?.();
  };
  const sink: EventSink<E> = {
    send(e) {
      if (!open) return;
      const frame = frameOf(e);
      if (write) write(frame);
      else pending.push(frame);
    },
    close() {
      if (!open) return;
      stop();
      end?.();
    },
    get open() {
      return open;
    },
  };
  const c = begin(sink);
  if (c) {
    if (open) cleanup = c;
    else c();
  }
  const feed: EventFeed = {
    attach(w, e) {
      if (attached) throw new Error('an event reply is read once');
      attached = true;
      for (const frame of pending) w(frame);
      pending = [];
      if (!open) {
        e();
        return () => {};
      }
      write = w;
      end = e;
      beat = setInterval(() => open && w(KEEP_ALIVE), heartbeatMs);
      beat.unref();
      return stop;
    },
  };
  // The Web body attaches only when read (a high-water mark of 0 asks for nothing before a read), so the HTTP layer
  // can take the feed instead.
  const encoder = new TextEncoder();
  let stopWeb: (() => void) | undefined;
  const body = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (stopWeb) return;
        stopWeb = feed.attach(
          (frame) => controller.enqueue(encoder.encode(frame)),
          () => controller.close(),
        );
      },
      cancel() {
        stopWeb?.();
        if (!attached) stop();
      },
    },
    { highWaterMark: 0 },
  );
  const response = new Response(body, { status: 200, headers: SSE_HEADERS });
  FEEDS.set(response, feed);
  return response;
}

/** The feed of a reply eventReply made whose body nobody has read; undefined for any other Response. */
export const feedOf = (response: Response): EventFeed | undefined => (response.bodyUsed || response.body?.locked ? undefined : FEEDS.get(response));
