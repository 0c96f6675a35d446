// The load generator's requests: one timed JSON call, one timed stream (first token, gaps between chunks), and
// autocannon for throughput. Every target gets exactly the same client, so differences are the servers'.
import autocannon from 'autocannon';
import { type Agent, request } from 'undici';

export interface Target {
  name: string;
  /** Chat completions URL. */
  url: string;
  headers: Record<string, string>;
  /** The relaying process (none for direct): its RSS and CPU are measured. */
  pid?: number;
  /** Where streams go, and the process relaying them, when not `url` and `pid`. */
  streamUrl?: string;
  streamPid?: number;
  /** The request body for a prompt (the target's own model name). */
  body(prompt: string, extra?: Record<string, unknown>): string;
}

export const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(q * s.length))] : Number.NaN;
};
export const median = (xs: number[]) => quantile(xs, 0.5);

/**
 * The targets' indexes for round `round` of an interleaved run, starting one further each round: every target
 * follows every other equally often. In a fixed order the target after the slowest one (the peer's streams take
 * 28 ms) always met a machine that had gone idle, its caches cold, and measured up to twice as slow.
 */
export const roundOrder = (count: number, round: number): number[] => Array.from({ length: count }, (_, k) => (k + round) % count);

const ms = (t0: bigint) => Number(process.hrtime.bigint() - t0) / 1e6;

export async function timeOne(url: string, headers: Record<string, string>, body: string): Promise<number> {
  const t0 = process.hrtime.bigint();
  const res = await request(url, { method: 'POST', headers, body });
  await res.body.arrayBuffer();
  if (res.statusCode !== 200) throw new Error(`${url} answered ${res.statusCode}`);
  return ms(t0);
}

export interface StreamTiming {
  ok: boolean;
  /** Request sent → first content delta received. */
  ttftMs: number;
  /** The longest wait between two received pieces of the body, after the first content delta. */
  maxGapMs: number;
  /** Events received before that gap (0: right after the first token; `events`: before [DONE]). */
  maxGapAt: number;
  /** `data:` events received, [DONE] excluded. */
  events: number;
  error?: string;
}

// The first event with non-empty text content: `"content":"x` (a role-only or empty first chunk does not count).
const FIRST_CONTENT = /"content":"[^"]/;

/** Streams one chat completion, timing its first token and the gaps between chunks. */
export async function streamOnce(url: string, headers: Record<string, string>, body: string, dispatcher?: Agent): Promise<StreamTiming> {
  const t0 = process.hrtime.bigint();
  let ttftMs = Number.NaN;
  let last = 0;
  let maxGapMs = 0;
  let maxGapAt = 0;
  let events = 0;
  let done = false;
  try {
    const res = await request(url, { method: 'POST', headers, body, dispatcher });
    if (res.statusCode !== 200) {
      const text = await res.body.text();
      return { ok: false, ttftMs, maxGapMs, maxGapAt, events, error: `${res.statusCode} ${text.slice(0, 200)}` };
    }
    res.body.setEncoding('utf8');
    let tail = '';
    let doneTail = '';
    for await (const piece of res.body as AsyncIterable<string>) {
      const now = ms(t0);
      if (Number.isNaN(ttftMs)) {
        if (FIRST_CONTENT.test(piece)) ttftMs = last = now;
      } else {
        if (now - last > maxGapMs) {
          maxGapMs = now - last;
          maxGapAt = events;
        }
        last = now;
      }
      // Events end in a blank line: "\n\n" counted across piece boundaries (one character of overlap is enough).
      const text = tail + piece;
      for (let i = text.indexOf('\n\n'); i >= 0; i = text.indexOf('\n\n', i + 2)) events++;
      if (!done) done = (doneTail + piece).includes('data: [DONE]');
      tail = text.slice(-1);
      doneTail = piece.slice(-12);
    }
    if (done) events--; // [DONE] is no event of the answer
    return { ok: done, ttftMs, maxGapMs, maxGapAt, events, error: done ? undefined : 'no [DONE]' };
  } catch (e) {
    return { ok: false, ttftMs, maxGapMs, maxGapAt, events, error: (e as Error).message };
  }
}

/** The throughput run's connections, each with one request in flight (no pipelining). */
export const CONNECTIONS = 64;

export async function rps(
  url: string,
  headers: Record<string, string>,
  body: string,
  seconds: number,
): Promise<{ rps: number; requests: number; errors: number; p99: number }> {
  const r = await autocannon({ url, method: 'POST', headers, body, connections: CONNECTIONS, duration: seconds, pipelining: 1 });
  return { rps: r.requests.average, requests: r.requests.total, errors: r.errors + r.non2xx + r.timeouts, p99: r.latency.p99 };
}
