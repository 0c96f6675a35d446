// The knowledge worker thread: the heavy steps off the server's event loop. `extract` turns an upload into text
// (lib/files: PDF, Office, text) and passages (chunk.ts); `rank` scores a query vector against the stored vectors
// (cosine) and keeps the best.
import { parentPort } from 'node:worker_threads';
import { parseDataUrl } from '../files/data-url.ts';
import { fileToText } from '../files/to-text.ts';
import { chunkText } from './chunk.ts';

export type WorkerJob =
  | { id: number; op: 'extract'; dataUrl: string; name: string; type: string; maxChars: number }
  | { id: number; op: 'rank'; query: number[]; embeddings: string[]; top: number };

export type WorkerReply =
  | { id: number; op: 'extract'; chunks: string[]; chars: number }
  | { id: number; op: 'rank'; hits: { index: number; score: number }[] }
  | { id: number; error: { code?: string; message: string } };

function norm(v: Float32Array, at: number, dims: number): number {
  let s = 0;
  for (let i = 0; i < dims; i++) s += v[at + i] * v[at + i];
  return Math.sqrt(s) || 1;
}

/** The `top` rows of `vectors` (row-major, `dims` wide) closest to `query` by cosine similarity, best first. */
export function rankVectors(query: Float32Array, vectors: Float32Array, dims: number, top: number): { index: number; score: number }[] {
  const n = Math.floor(vectors.length / dims);
  const qn = norm(query, 0, dims);
  const best: { index: number; score: number }[] = [];
  for (let r = 0; r < n; r++) {
    const at = r * dims;
    let dot = 0;
    for (let i = 0; i < dims; i++) dot += query[i] * vectors[at + i];
    const score = dot / (qn * norm(vectors, at, dims));
    if (best.length < top || score > best[best.length - 1].score) {
      best.push({ index: r, score });
      best.sort((a, b) => b.score - a.score);
      if (best.length > top) best.pop();
    }
  }
  return best;
}

async function handle(job: WorkerJob): Promise<WorkerReply> {
  if (job.op === 'rank') {
    const dims = job.query.length;
    // Stored vectors arrive as base64 float32 (the store's form) and are decoded here; one of another width (an
    // embedding model that changed its dimensions) scores 0 rather than failing the search.
    const vectors = new Float32Array(job.embeddings.length * dims);
    job.embeddings.forEach((b64, r) => {
      const buf = Buffer.from(b64, 'base64');
      if (buf.length !== dims * 4) return;
      for (let i = 0; i < dims; i++) vectors[r * dims + i] = buf.readFloatLE(i * 4);
    });
    return { id: job.id, op: 'rank', hits: rankVectors(Float32Array.from(job.query), vectors, dims, job.top) };
  }
  // The upload arrives as its stored data: URL and is decoded here, so a 10 MB file costs the event loop nothing.
  const { data } = parseDataUrl(job.dataUrl);
  const { text } = await fileToText({ data, filename: job.name, mimeType: job.type }, { maxChars: job.maxChars });
  return { id: job.id, op: 'extract', chunks: chunkText(text), chars: text.length };
}

parentPort?.on('message', (job: WorkerJob) => {
  handle(job).then(
    (reply) => parentPort!.postMessage(reply),
    (e: unknown) => {
      const err = e as { code?: unknown; message?: unknown };
      parentPort!.postMessage({ id: job.id, error: { code: typeof err?.code === 'string' ? err.code : undefined, message: String(err?.message ?? e) } });
    },
  );
});
