// The thread large JSON is handled in (off-loop.ts): on the event loop, parsing a 30 MiB body or writing one
// for an upstream takes a quarter of a second from every other request. Bytes arrive shared or transferred (no
// copy); a parsed value goes back cloned, a written text as UTF-8 bytes whose buffer is transferred.
import { parentPort } from 'node:worker_threads';

export type JsonJob = { id: number; op: 'parse'; bytes: Uint8Array } | { id: number; op: 'stringify'; value: unknown };
export type JsonReply = { id: number; value: unknown } | { id: number; bytes: Uint8Array } | { id: number; error: string };

const encoder = new TextEncoder();

parentPort?.on('message', (job: JsonJob) => {
  try {
    if (job.op === 'parse') {
      const text = Buffer.from(job.bytes.buffer, job.bytes.byteOffset, job.bytes.byteLength).toString('utf8');
      parentPort?.postMessage({ id: job.id, value: JSON.parse(text) } satisfies JsonReply);
    } else {
      const bytes = encoder.encode(JSON.stringify(job.value));
      parentPort?.postMessage({ id: job.id, bytes } satisfies JsonReply, [bytes.buffer]);
    }
  } catch (e) {
    parentPort?.postMessage({ id: job.id, error: (e as Error).message } satisfies JsonReply);
  }
});
