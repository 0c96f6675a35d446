// The thread large JSON is handled in (off-loop.ts): on the event loop, parsing a 30 MiB body or writing one
// for an upstream takes a quarter of a second from every other request. Bytes arrive shared or transferred (no
// copy); a parsed value goes back cloned, a written text as UTF-8 bytes whose buffer is transferred.
import { hash } from 'node:crypto';
import { parentPort } from 'node:worker_threads';
import { packNumbers } from './pack.ts';

/**
 * `typed` (parse): long arrays of numbers come back as Float64Array views of one transferred buffer, since cloning
 * millions of numbers one by one costs the loop more than parsing them did. `sha256` (stringify): also hash the
 * written bytes (an answer's receipt hash), here rather than on the loop.
 */
export type JsonJob = { id: number; op: 'parse'; bytes: Uint8Array; typed?: boolean } | { id: number; op: 'stringify'; value: unknown; sha256?: boolean };
export type JsonReply = { id: number; value: unknown } | { id: number; bytes: Uint8Array; sha256?: string } | { id: number; error: string };

const encoder = new TextEncoder();

// In this thread only: a typed array is written as the array of numbers it holds (vectors parsed with `typed`).
Object.defineProperty(Object.getPrototypeOf(Float64Array.prototype), 'toJSON', {
  value(this: Float64Array) {
    return Array.from(this);
  },
});

parentPort?.on('message', (job: JsonJob) => {
  try {
    if (job.op === 'parse') {
      const text = Buffer.from(job.bytes.buffer, job.bytes.byteOffset, job.bytes.byteLength).toString('utf8');
      const value: unknown = JSON.parse(text);
      const packed = job.typed ? packNumbers(value) : undefined;
      parentPort?.postMessage({ id: job.id, value } satisfies JsonReply, packed ? [packed] : []);
    } else {
      const bytes = encoder.encode(JSON.stringify(job.value));
      const sha256 = job.sha256 ? hash('sha256', bytes) : undefined;
      parentPort?.postMessage({ id: job.id, bytes, sha256 } satisfies JsonReply, [bytes.buffer]);
    }
  } catch (e) {
    parentPort?.postMessage({ id: job.id, error: (e as Error).message } satisfies JsonReply);
  }
});
