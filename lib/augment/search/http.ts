// GET a search provider's JSON API. Providers are operator-configured (a SearXNG is usually on a private address), so
// this is plain undici rather than safeFetch; it still bounds the time and the size of what a provider sends back.
// Every failure is an Error whose message says what went wrong, prefixed with the provider's name: the caller logs it
// and answers without search.

import { request } from 'undici';

export interface GetJsonOptions {
  /** The provider's name, for error messages. */
  provider: string;
  headers?: Record<string, string>;
  /** The whole request, body included. */
  timeoutMs: number;
  /** Largest response body accepted. */
  maxBytes?: number;
  signal?: AbortSignal;
}

const DEFAULT_MAX_BYTES = 2 * 1024 * 1024;

export async function getJson(url: string, opts: GetJsonOptions): Promise<unknown> {
  const { provider, timeoutMs } = opts;
  const maxBytes = opts.maxBytes ?? DEFAULT_MAX_BYTES;
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout;
  let text: string;
  try {
    const res = await request(url, { method: 'GET', headers: { accept: 'application/json', ...opts.headers }, signal });
    const chunks: Buffer[] = [];
    let size = 0;
    try {
      for await (const chunk of res.body) {
        size += chunk.length;
        if (size > maxBytes) throw new Error(`${provider}: response larger than ${maxBytes} bytes`);
        chunks.push(chunk as Buffer);
      }
    } finally {
      res.body.destroy();
    }
    text = Buffer.concat(chunks).toString('utf8');
    if (res.statusCode !== 200) {
      const detail = text.replace(/\s+/g, ' ').trim().slice(0, 200);
      throw new Error(`${provider}: HTTP ${res.statusCode}${detail ? ` (${detail})` : ''}`);
    }
  } catch (e) {
    if (timeout.aborted) throw new Error(`${provider}: timed out after ${timeoutMs} ms`);
    if (opts.signal?.aborted) throw new Error(`${provider}: search was cancelled`);
    if (e instanceof Error && e.message.startsWith(`${provider}: `)) throw e;
    throw new Error(`${provider}: ${describeFailure(e)}`);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new Error(`${provider}: response is not valid JSON`);
  }
}

function describeFailure(e: unknown): string {
  const err = e as { code?: unknown; message?: unknown; cause?: { code?: unknown } } | null;
  const code = err?.code ?? err?.cause?.code;
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'host not found';
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return 'connection reset';
  return `request failed (${typeof code === 'string' ? code : String(err?.message ?? e)})`;
}
