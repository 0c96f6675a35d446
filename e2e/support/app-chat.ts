// Test helpers for the chat routes: a signed-in user with credit, Requests as the browser sends them, and a reader
// for the generation event stream.
import { grantUsd } from '../../lib/billing/ledger.ts';
import { toMicros } from '../../lib/billing/money.ts';
import type { Store } from '../../lib/db/store.ts';
import { createSession, SESSION_COOKIE } from '../../lib/users/sessions.ts';
import { signUp, type User } from '../../lib/users/users.ts';
import type { RouteHandler } from '../../lib/http/app-route.ts';
import type { GenerationEvent } from '../../lib/wire.ts';

export interface TestUser {
  user: User;
  cookie: string;
  csrf: string;
}

let seq = 0;

export async function testUser(store: Store, usd = 10): Promise<TestUser> {
  const { user } = await signUp(store, { email: `user${++seq}-${Date.now()}@example.test`, password: 'correct horse battery staple' });
  if (usd > 0) await grantUsd(store, user.accountId, toMicros(usd));
  const s = await createSession(store, user.id);
  return { user, cookie: `${SESSION_COOKIE}=${s.token}`, csrf: s.csrfToken };
}

export interface CallOptions {
  body?: unknown;
  params?: Record<string, string>;
  /** Leave out the CSRF header. */
  noCsrf?: boolean;
  /** An Accept header (the browser asks a turn for `text/event-stream`). */
  accept?: string;
}

/** Calls a handler with a Request shaped like the browser's (session cookie, CSRF header, JSON body). */
export function call(handler: RouteHandler, method: string, path: string, who: TestUser | undefined, opts: CallOptions = {}): Promise<Response> {
  const headers: Record<string, string> = {};
  if (who) headers.cookie = who.cookie;
  if (who && !opts.noCsrf) headers['x-csrf-token'] = who.csrf;
  if (opts.accept) headers.accept = opts.accept;
  let body: string | undefined;
  if (opts.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
  }
  return handler(new Request(`http://127.0.0.1/api/app${path}`, { method, headers, body }), opts.params ?? {});
}

/** Reads `data:` events from an SSE response one at a time; keep-alive comments are counted, not returned. */
export class EventReader {
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private readonly decoder = new TextDecoder();
  private buf = '';
  comments = 0;
  raw = '';

  constructor(res: Response) {
    if (!res.body) throw new Error('no body');
    this.reader = res.body.getReader();
  }

  /** The next event, or undefined at the end of the stream. */
  async next(timeoutMs = 15_000): Promise<GenerationEvent | undefined> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const end = this.buf.indexOf('\n\n');
      if (end >= 0) {
        const block = this.buf.slice(0, end);
        this.buf = this.buf.slice(end + 2);
        if (block.startsWith(':')) {
          this.comments++;
          continue;
        }
        if (block.startsWith('data: ')) return JSON.parse(block.slice(6)) as GenerationEvent;
        continue;
      }
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no event within ${timeoutMs} ms`);
      let timer: NodeJS.Timeout | undefined;
      const r = await Promise.race([
        this.reader.read(),
        new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no event within ${timeoutMs} ms`)), left))),
      ]).finally(() => clearTimeout(timer));
      if (r.done) return undefined;
      const text = this.decoder.decode(r.value, { stream: true });
      this.raw += text;
      this.buf += text;
    }
  }

  /** Every event up to and including `done`. */
  async rest(timeoutMs = 30_000): Promise<GenerationEvent[]> {
    const out: GenerationEvent[] = [];
    for (;;) {
      const e = await this.next(timeoutMs);
      if (!e) return out;
      out.push(e);
      if (e.type === 'done') return out;
    }
  }

  cancel(): Promise<void> {
    return this.reader.cancel();
  }
}

/** Content and reasoning put together from a snapshot and the deltas after it. */
export function assemble(events: GenerationEvent[]): { content: string; reasoning: string } {
  let content = '';
  let reasoning = '';
  for (const e of events) {
    if (e.type === 'snapshot') [content, reasoning] = [e.content, e.reasoning];
    if (e.type === 'delta') {
      content += e.content ?? '';
      reasoning += e.reasoning ?? '';
    }
  }
  return { content, reasoning };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Waits until `check` holds, polling every 25 ms, and fails after `ms` saying what was awaited: a test waits for the
 * state it needs, not for a guess at how long that takes on a busy machine.
 */
export async function until(what: string, check: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting until ${what}`);
    await sleep(25);
  }
}

/** A 1×1 PNG. */
export const PNG_1X1 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
