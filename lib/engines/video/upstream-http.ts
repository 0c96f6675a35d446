// HTTP to the video upstreams the operator configured (their URLs come from the catalogue, never from a request):
// JSON calls with a time limit, and downloads streamed to a file with a size cap. A transport failure is a
// JobFailure the client hears as "the upstream failed"; the credit is refunded.
import fs from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { Transform } from 'node:stream';
import { request } from 'undici';
import { JobFailure } from '../../jobs/types.ts';
import { transportReason } from '../health-probe.ts';

export interface CallOptions {
  method?: 'GET' | 'POST' | 'DELETE';
  headers?: Record<string, string>;
  body?: string | Buffer | FormData;
  signal: AbortSignal;
  /** One call, headers and body (default 60 s). */
  timeoutMs?: number;
}

// Messages reach the job's owner: the failure in words, never the upstream's address (an operator's internal host).
const unreachable = (e: unknown, timeoutMs: number) => new JobFailure('failed', `The video upstream could not be reached: ${transportReason(e, timeoutMs)}`);

/** A JSON call; non-2xx answers come back with their status for the caller to judge. */
export async function callJson(url: string, o: CallOptions): Promise<{ status: number; json: any; text: string }> {
  const timeoutMs = o.timeoutMs ?? 60_000;
  const signal = AbortSignal.any([o.signal, AbortSignal.timeout(timeoutMs)]);
  let res;
  try {
    const init = o.body instanceof FormData ? await formBody(o.body) : { body: o.body, headers: {} };
    res = await request(url, { method: o.method ?? 'GET', headers: { accept: 'application/json', ...init.headers, ...o.headers }, body: init.body, signal });
    const text = await res.body.text();
    let json: any;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {}
    return { status: res.statusCode, json, text };
  } catch (e) {
    o.signal.throwIfAborted();
    throw unreachable(e, timeoutMs);
  }
}

/** multipart/form-data through undici: the FormData as a body with its boundary header. */
async function formBody(form: FormData): Promise<{ body: Buffer; headers: Record<string, string> }> {
  const r = new Response(form);
  return { body: Buffer.from(await r.arrayBuffer()), headers: { 'content-type': r.headers.get('content-type')! } };
}

/** Streams a download to `file`; more than `maxBytes` fails the job. Returns the media type the upstream named. */
export async function download(url: string, file: string, o: { headers?: Record<string, string>; signal: AbortSignal; maxBytes: number; timeoutMs?: number }) {
  const timeoutMs = o.timeoutMs ?? 10 * 60_000;
  const signal = AbortSignal.any([o.signal, AbortSignal.timeout(timeoutMs)]);
  let res;
  try {
    res = await request(url, { headers: o.headers, signal });
  } catch (e) {
    o.signal.throwIfAborted();
    throw unreachable(e, timeoutMs);
  }
  if (res.statusCode !== 200) {
    await res.body.dump();
    throw new JobFailure('failed', `The video upstream answered HTTP ${res.statusCode} for the result`);
  }
  let size = 0;
  const cap = new Transform({
    transform(chunk: Buffer, _enc, done) {
      size += chunk.length;
      done(size > o.maxBytes ? new JobFailure('failed', `The video upstream's result is larger than ${Math.floor(o.maxBytes / 1048576)} MB`) : null, chunk);
    },
  });
  try {
    await pipeline(res.body, cap, fs.createWriteStream(file), { signal });
  } catch (e) {
    o.signal.throwIfAborted();
    if (e instanceof JobFailure) throw e;
    throw new JobFailure('failed', `Downloading the result from the video upstream failed: ${transportReason(e, timeoutMs)}`);
  }
  return {
    contentType: String(res.headers['content-type'] ?? '')
      .split(';')[0]
      .trim()
      .toLowerCase(),
    bytes: size,
  };
}

/** Waits `ms`, or rejects with the signal's reason. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** The upstream's credential, from the variable the catalogue names. */
export function bearer(apiKeyEnv: string | undefined, vars: (name: string) => string | undefined): Record<string, string> {
  const key = apiKeyEnv ? vars(apiKeyEnv) : undefined;
  return key ? { authorization: `Bearer ${key}` } : {};
}
