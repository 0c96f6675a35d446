// POST /v1/embeddings: deterministic vectors (mulberry32 seeded with the FNV-1a hash of each input, L2-normalised,
// EMBEDDING_DIMENSIONS components or the request's `dimensions`; float arrays or base64 little-endian float32), word
// counts for usage, and the markers that apply to embeddings ([[delay]], [[status:CODE]], [[context]]) read from all
// inputs. Chat shares only the script parsing, the error bodies and the counting with it.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { embeddingsContextError, errorBody, scriptedError, sleep } from './faults.ts';
import { parseScript } from './markers.ts';
import type { Upstream } from './server.ts';
import { countWords } from './tokens.ts';

const EMBEDDING_DIMENSIONS = 16;

/** The text's deterministic unit vector: mulberry32 seeded by the FNV-1a hash of its UTF-8 bytes. */
export function hashVector(text: string, dims: number): number[] {
  let h = 2166136261;
  for (const b of Buffer.from(text, 'utf8')) h = Math.imul(h ^ b, 16777619) >>> 0;
  let a = h;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const v = Array.from({ length: dims }, () => next() * 2 - 1);
  const norm = Math.hypot(...v) || 1;
  return v.map((x) => x / norm);
}

export async function embed(up: Upstream, req: IncomingMessage, res: ServerResponse, body: any): Promise<void> {
  const inputs: unknown[] = typeof body?.input === 'string' ? [body.input] : Array.isArray(body?.input) ? body.input : [];
  if (inputs.length === 0 || !inputs.every((t) => typeof t === 'string' && t.length > 0)) {
    return up.sendJson(res, 400, errorBody('input must be a non-empty string or array of non-empty strings', 'invalid_request_error', 'input'));
  }
  up.record('embeddingRequests', req, body);
  const texts = inputs as string[];
  const script = parseScript(texts.join('\n'));
  if (up.engine.delayMs > 0) await sleep(up.engine.delayMs);
  if (script.delayMs > 0) await sleep(script.delayMs);
  const fault = scriptedError(script, embeddingsContextError);
  if (fault) return up.sendJson(res, fault.status, fault.body);
  const dims = Number.isInteger(body.dimensions) && body.dimensions > 0 ? body.dimensions : EMBEDDING_DIMENSIONS;
  const data = texts.map((text, index) => {
    const v = hashVector(text, dims);
    let embedding: number[] | string = v;
    if (body.encoding_format === 'base64') {
      const buf = Buffer.alloc(v.length * 4);
      v.forEach((x, i) => buf.writeFloatLE(x, i * 4));
      embedding = buf.toString('base64');
    }
    return { object: 'embedding', index, embedding };
  });
  const words = texts.reduce((n, t) => n + countWords(t), 0);
  up.sendJson(res, 200, { object: 'list', model: body.model ?? 'scripted', data, usage: { prompt_tokens: words, total_tokens: words } });
}
