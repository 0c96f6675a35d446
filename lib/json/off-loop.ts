// Large JSON parsed and written in one long-lived thread (thread.ts), started on first use and unreferenced while
// idle so it never holds the process open. The loop then pays for one copy of the data, not for decoding, escaping,
// parsing and the garbage of each. A thread that cannot start or dies fails over to doing the work in place.
import { hash } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import type { JsonJob, JsonReply } from './thread.ts';

/**
 * JSON this large is parsed and written here, not on the event loop: JSON.parse runs at a few hundred MB/s, so
 * 1 MiB is a few milliseconds in place, while a 30 MiB prompt would hold every other request for a quarter second.
 */
export const OFF_LOOP_JSON_BYTES = 1024 * 1024;

/** Whether the strings in `value` add up to at least `limit` characters (stops counting once they do). */
export function holdsChars(value: unknown, limit = OFF_LOOP_JSON_BYTES): boolean {
  let left = limit;
  const walk = (v: unknown): boolean => {
    if (typeof v === 'string') return (left -= v.length) <= 0;
    if (Array.isArray(v)) return v.some(walk);
    if (v && typeof v === 'object') return Object.values(v).some(walk);
    return false;
  };
  return walk(value);
}

type Pending = { resolve: (r: JsonReply) => void; reject: (e: Error) => void };
type Thread = { worker: Worker; pending: Map<number, Pending> };

let current: Thread | undefined;
let nextId = 1;

function start(): Thread {
  if (current) return current;
  const t: Thread = { worker: new Worker(new URL('./thread.ts', import.meta.url)), pending: new Map() };
  t.worker.on('message', (reply: JsonReply) => {
    const p = t.pending.get(reply.id);
    if (!p) return;
    t.pending.delete(reply.id);
    if (t.pending.size === 0) t.worker.unref();
    p.resolve(reply);
  });
  // A thread that fails fails what it held (each caller then does its work in place); the next call starts another.
  const fail = (e: Error) => {
    if (current === t) current = undefined;
    for (const p of t.pending.values()) p.reject(e);
    t.pending.clear();
  };
  t.worker.on('error', fail);
  t.worker.on('exit', () => fail(new Error('the JSON thread stopped')));
  current = t;
  return t;
}

type Job = JsonJob extends infer J ? (J extends JsonJob ? Omit<J, 'id'> : never) : never;

/** The thread's answer to `job`; throws when the thread cannot take it (the caller then does the work in place). */
async function run(job: Job): Promise<JsonReply> {
  const t = start();
  const id = nextId++;
  t.worker.ref();
  return new Promise<JsonReply>((resolve, reject) => {
    t.pending.set(id, { resolve, reject });
    try {
      t.worker.postMessage({ ...job, id });
    } catch (e) {
      // A value the structured clone cannot copy (a function, a symbol): not sent, nothing to wait for.
      t.pending.delete(id);
      if (t.pending.size === 0) t.worker.unref();
      reject(e);
    }
  });
}

/**
 * The parsed value of `bytes` (UTF-8 JSON), or a SyntaxError with JSON.parse's message. Bytes on a
 * SharedArrayBuffer reach the thread without a copy; others are copied once. With `typed`, arrays of 64 numbers or
 * more come back as Float64Array views (pack.ts): a vector's numbers are then one copy, not millions of clones.
 */
export async function parseJsonOffLoop(bytes: Uint8Array, opts: { typed?: boolean } = {}): Promise<unknown> {
  let reply: JsonReply;
  try {
    reply = await run({ op: 'parse', bytes, typed: opts.typed });
  } catch {
    return JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'));
  }
  if ('error' in reply) throw new SyntaxError(reply.error);
  return (reply as { value: unknown }).value;
}

/**
 * JSON.stringify(value) as UTF-8 bytes, written in the thread: the loop pays for cloning the value (a copy of its
 * strings and numbers), not for escaping strings and printing numbers. For values of plain JSON data; typed arrays
 * (the views a `typed` parse made) are written as arrays of numbers.
 */
export async function stringifyOffLoop(value: unknown): Promise<Uint8Array> {
  return (await writeJson(value, false)).bytes;
}

/** stringifyOffLoop, with the SHA-256 of the bytes (hex) made in the thread too. */
export async function stringifyAndHashOffLoop(value: unknown): Promise<{ bytes: Uint8Array; sha256: string }> {
  const out = await writeJson(value, true);
  return { bytes: out.bytes, sha256: out.sha256 ?? hash('sha256', out.bytes) };
}

/** As the thread writes them: a typed array as the array of its numbers. */
const typedAsArrays = (_key: string, v: unknown) => (ArrayBuffer.isView(v) && !(v instanceof DataView) ? Array.from(v as Float64Array) : v);

async function writeJson(value: unknown, sha256: boolean): Promise<{ bytes: Uint8Array; sha256?: string }> {
  let reply: JsonReply;
  try {
    reply = await run({ op: 'stringify', value, sha256 });
  } catch {
    return { bytes: Buffer.from(JSON.stringify(value, typedAsArrays)) };
  }
  if ('error' in reply) throw new TypeError(reply.error);
  return reply as { bytes: Uint8Array; sha256?: string };
}
