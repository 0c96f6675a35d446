// HTTP to an image upstream the operator configured (never a URL from a request): one connection pool per engine,
// sized to its admission limit, a time limit for the whole job, the caller's abort passed on, response bodies capped,
// and the upstream's failures mapped to EngineErrors (429/503 → capacity, 4xx → the request, 5xx → failed).
import { transportReason } from '../health-probe.ts';
import { Agent, type FormData, request } from 'undici';
import { EngineError } from '../text/types.ts';

/** Several large images in base64, with room to spare. */
const MAX_RESPONSE_BYTES = 192 * 1024 * 1024;
export const DEFAULT_UPSTREAM_TIMEOUT_MS = 120_000;

export interface UpstreamOptions {
  baseUrl: string;
  /** The Authorization header value, when the upstream needs one. */
  authorization?: string;
  timeoutMs?: number;
  connections: number;
  /** Names the upstream in error messages and logs. */
  name: string;
}

export interface UpstreamResponse {
  status: number;
  contentType: string;
  body: Buffer;
}

export interface CallOptions {
  json?: unknown;
  form?: FormData;
  query?: Record<string, string>;
  /** The job's signal and deadline (Upstream.deadline). */
  signal: AbortSignal;
}

/** A signal that fires when the caller aborts or the deadline passes; `timedOut` tells the two apart. */
export interface Deadline {
  signal: AbortSignal;
  timedOut(): boolean;
}

export class Upstream {
  readonly name: string;
  private readonly base: string;
  private readonly agent: Agent;
  private readonly authorization: string | undefined;
  private readonly timeoutMs: number;

  constructor(o: UpstreamOptions) {
    this.name = o.name;
    this.base = o.baseUrl.replace(/\/+$/, '');
    this.authorization = o.authorization;
    this.timeoutMs = o.timeoutMs ?? DEFAULT_UPSTREAM_TIMEOUT_MS;
    this.agent = new Agent({ connections: o.connections, headersTimeout: this.timeoutMs, bodyTimeout: this.timeoutMs });
  }

  /** The whole job's deadline, from now. */
  deadline(signal: AbortSignal): Deadline {
    const timeout = AbortSignal.timeout(this.timeoutMs);
    return { signal: AbortSignal.any([signal, timeout]), timedOut: () => timeout.aborted };
  }

  url(path: string, query?: Record<string, string>): string {
    const qs = query ? `?${new URLSearchParams(query)}` : '';
    return `${this.base}${path}${qs}`;
  }

  /** Any answer (the caller judges the status); a network failure, timeout or oversized body throws. */
  async call(method: 'GET' | 'POST', path: string, o: CallOptions, deadline: Deadline): Promise<UpstreamResponse> {
    const headers: Record<string, string> = { accept: 'application/json, image/*' };
    if (this.authorization) headers.authorization = this.authorization;
    let body: string | FormData | undefined;
    if (o.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(o.json);
    } else if (o.form) body = o.form;
    try {
      const res = await request(this.url(path, o.query), { method, headers, body, dispatcher: this.agent, signal: o.signal });
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of res.body) {
        size += chunk.length;
        if (size > MAX_RESPONSE_BYTES) {
          res.body.destroy();
          throw new EngineError('failed', `${this.name} answered more than ${MAX_RESPONSE_BYTES} bytes`);
        }
        chunks.push(chunk);
      }
      const type = res.headers['content-type'];
      return { status: res.statusCode, contentType: (Array.isArray(type) ? type[0] : (type ?? '')).toLowerCase(), body: Buffer.concat(chunks) };
    } catch (e) {
      if (e instanceof EngineError) throw e;
      if (deadline.timedOut()) throw new EngineError('timeout', `${this.name} did not answer within ${this.timeoutMs} ms`);
      if (o.signal.aborted) throw new EngineError('failed', 'aborted');
      throw new EngineError('failed', `${this.name} could not be reached: ${transportReason(e, this.timeoutMs)}`);
    }
  }

  /** A JSON answer with a 2xx status; anything else is mapped to the EngineError it means. */
  async json(method: 'GET' | 'POST', path: string, o: CallOptions, deadline: Deadline): Promise<any> {
    const res = await this.call(method, path, o, deadline);
    if (res.status < 200 || res.status > 299) throw this.failure(res);
    try {
      return JSON.parse(res.body.toString('utf8'));
    } catch {
      throw new EngineError('failed', `${this.name} answered ${path} with something that is not JSON`);
    }
  }

  /** The EngineError an unsuccessful answer means. */
  failure(res: UpstreamResponse): EngineError {
    const why = upstreamMessage(res.body);
    const what = `${this.name} answered HTTP ${res.status}${why ? `: ${why}` : ''}`;
    if (res.status === 429 || res.status === 503) return new EngineError('capacity', what);
    if (res.status === 408 || res.status === 504) return new EngineError('timeout', what);
    // Our credentials or our request shape were refused: the operator's configuration, not the caller's request.
    if (res.status === 401 || res.status === 403 || res.status === 404 || res.status === 405) return new EngineError('failed', what);
    if (res.status >= 400 && res.status < 500) return new EngineError('bad_request', why ?? `HTTP ${res.status}`);
    return new EngineError('failed', what);
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}

/** The message in an error body: OpenAI's {error:{message}}, FastAPI's {detail}, A1111's {error, errors}, or short text. */
export function upstreamMessage(body: Buffer): string | undefined {
  const text = body.toString('utf8').slice(0, 4096);
  try {
    const j = JSON.parse(text);
    const m = j?.error?.message ?? (typeof j?.error === 'string' ? j.error : undefined) ?? j?.detail ?? j?.errors ?? j?.message;
    if (m !== undefined) return (typeof m === 'string' ? m : JSON.stringify(m)).slice(0, 500);
  } catch {
    // not JSON
  }
  const plain = text.trim();
  return plain && !plain.startsWith('<') ? plain.slice(0, 200) : undefined;
}

/** Base64 (optionally a data: URL) from an upstream's JSON, as bytes; malformed is the upstream's failure. */
export function base64Image(value: unknown, name: string): Buffer {
  if (typeof value !== 'string' || !value) throw new EngineError('failed', `${name} answered without image data`);
  const b64 = value.startsWith('data:') ? value.slice(value.indexOf(',') + 1) : value;
  const bytes = Buffer.from(b64, 'base64');
  if (!bytes.length) throw new EngineError('failed', `${name} answered with empty image data`);
  return bytes;
}
