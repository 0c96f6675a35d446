// Any OpenAI-compatible upstream (vLLM, SGLang, llama.cpp server, Ollama, hosted APIs). Streams pass through chunk
// by chunk; usage is requested with stream_options.include_usage; the caller's AbortSignal aborts the upstream
// request, so an engine like vLLM stops generating when our client goes away.
import { Agent, errors as undiciErrors, request } from 'undici';
import type { EmbedOptions, EmbedResult, Engine, EngineChunk, EngineCompletion, EngineRequest, EngineUsage } from './types.ts';
import { EngineError } from './types.ts';
import { sseData } from './sse.ts';
import { fromBase64 } from './vectors.ts';
import { DEFAULT_MAX_CONCURRENCY } from '../queue.ts';

/** Vectors in input order from an OpenAI embeddings body; floats, or base64 from an upstream that ignores the ask. */
function vectorsFrom(j: Record<string, any>, count: number): number[][] {
  if (!Array.isArray(j.data) || j.data.length !== count)
    throw new EngineError('failed', `the upstream answered ${Array.isArray(j.data) ? j.data.length : 'no'} embeddings for ${count} inputs`);
  const out: number[][] = new Array(count);
  for (const [pos, item] of (j.data as Record<string, any>[]).entries()) {
    const i = typeof item?.index === 'number' ? item.index : pos;
    const v = typeof item?.embedding === 'string' ? fromBase64(item.embedding) : item?.embedding;
    if (!Array.isArray(v) || !(i >= 0 && i < count) || out[i]) throw new EngineError('failed', 'the upstream sent a malformed embedding');
    out[i] = v;
  }
  return out;
}

export interface OpenAIEngineOptions {
  baseUrls: string[];
  /** The upstream's served model name. */
  model: string;
  apiKey?: string;
  /** Until response headers arrive, counted from when the request is dispatched (after admission). */
  timeoutMs?: number;
  /** A whole non-streamed completion. */
  totalTimeoutMs?: number;
  thinkingControl?: 'chat_template_kwargs' | 'none';
  /**
   * Connections per upstream origin: the engine's admission limit (maxConcurrency), so every admitted request has a
   * connection at once and never waits in undici's own, unbounded queue.
   */
  connections?: number;
}

export const DEFAULT_TIMEOUT_MS = 60_000;

// Rendezvous hashing: a cache key always lands on the same replica while the replica set is unchanged.
function pickReplica(urls: string[], key: string | undefined, counter: number): number {
  if (urls.length === 1) return 0;
  if (!key) return counter % urls.length;
  let best = 0;
  let bestScore = -1;
  for (const [i, u] of urls.entries()) {
    let h = 2166136261;
    for (const ch of `${key}|${u}`) h = Math.imul(h ^ ch.charCodeAt(0), 16777619) >>> 0;
    if (h > bestScore) [best, bestScore] = [i, h];
  }
  return best;
}

function normaliseUsage(u: Record<string, any> | undefined | null): EngineUsage | undefined {
  if (!u || typeof u.prompt_tokens !== 'number') return undefined;
  return {
    prompt_tokens: u.prompt_tokens,
    completion_tokens: u.completion_tokens ?? 0,
    cached_tokens: u.prompt_tokens_details?.cached_tokens ?? undefined,
    reasoning_tokens: u.completion_tokens_details?.reasoning_tokens ?? undefined,
  };
}

function upstreamBody(opts: OpenAIEngineOptions, req: EngineRequest, stream: boolean) {
  const { disable_thinking, native_search, ...params } = req.params;
  // JSON.stringify leaves out undefined fields, so unset parameters never reach the upstream.
  return JSON.stringify({
    ...params,
    model: opts.model,
    messages: req.messages,
    stream,
    stream_options: stream ? { include_usage: true } : undefined,
    chat_template_kwargs: disable_thinking && opts.thinkingControl !== 'none' ? { enable_thinking: false } : undefined,
    // xAI's live-search request field: the upstream searches the web and X and cites what it used.
    search_parameters: native_search ? { mode: 'on', return_citations: true, sources: [{ type: 'web' }, { type: 'x' }] } : undefined,
  });
}

async function failureFrom(status: number, body: AsyncIterable<Uint8Array> & { text(): Promise<string> }): Promise<EngineError> {
  const text = await body.text().catch(() => '');
  let message = text.slice(0, 500);
  let code: unknown;
  try {
    const j = JSON.parse(text);
    const err = typeof j.error === 'object' && j.error ? j.error : j;
    message = String(err.message ?? err.error ?? message);
    code = err.code;
  } catch {
    /* not JSON: keep the text */
  }
  if (code === 'context_length_exceeded' || /maximum context length|context length/i.test(message)) return new EngineError('context_length', message);
  if (status === 400 || status === 422) return new EngineError('bad_request', message || 'the upstream rejected the request');
  if (status === 429 || status === 503) return new EngineError('capacity', `upstream at capacity (${status})`);
  if (status === 504 || status === 408) return new EngineError('timeout', `upstream timed out (${status})`);
  return new EngineError('failed', `upstream error ${status}`);
}

function transportFailure(e: unknown, signal: AbortSignal, timedOut = false): EngineError {
  if (e instanceof EngineError) return e;
  if (timedOut || e instanceof undiciErrors.HeadersTimeoutError || e instanceof undiciErrors.BodyTimeoutError) {
    return new EngineError('timeout', 'the upstream did not answer in time');
  }
  if (signal.aborted) return new EngineError('failed', 'aborted by the client');
  return new EngineError('failed', `upstream unreachable: ${(e as Error).message ?? e}`);
}

type Sent = Awaited<ReturnType<typeof request>>;
type RequestOptions = Omit<Parameters<Agent['request']>[0], 'origin' | 'path'>;

export function createOpenAIEngine(opts: OpenAIEngineOptions): Engine {
  // One pool per engine: engines sharing an upstream origin never take each other's connections.
  const agent = new Agent({ connections: opts.connections ?? DEFAULT_MAX_CONCURRENCY, keepAliveTimeout: 30_000, pipelining: 1 });
  let counter = 0;
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (opts.apiKey) headers.authorization = `Bearer ${opts.apiKey}`;
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const totalTimeoutMs = opts.totalTimeoutMs ?? 300_000;
  // Per replica, each path's origin and request path, parsed once rather than by undici's request() on every call.
  const replicas = opts.baseUrls.map((u) => ({ base: u.replace(/\/$/, ''), targets: new Map<string, { origin: string; path: string }>() }));

  function dispatch(replica: (typeof replicas)[number], path: string, o: RequestOptions): Promise<Sent> {
    let t = replica.targets.get(path);
    if (!t) {
      const url = new URL(`${replica.base}${path}`);
      // Any other scheme: request() refuses it, on every call, with undici's own error.
      if (url.protocol !== 'http:' && url.protocol !== 'https:') return request(url, { ...o, dispatcher: agent });
      t = { origin: url.origin, path: url.search ? `${url.pathname}${url.search}` : url.pathname };
      replica.targets.set(path, t);
    }
    return agent.request({ ...o, origin: t.origin, path: t.path });
  }

  /**
   * Sends one request; resolves once the response headers arrive. One controller and one timer serve the whole call:
   * the caller's signal aborts it, and the timer fires at the header deadline (timeoutMs from dispatch: ours, so an
   * upstream that accepts the connection and never answers is a timeout whatever undici's parser timers do) and, for
   * a non-streamed call given `totalBy` (a performance.now() time), at the total deadline. The request stays tied to
   * both until `detach()` (the body is read after the headers); `failure(e)` maps an error met while reading it.
   * Errors before the headers are thrown mapped, the upstream's own error statuses included.
   */
  async function send(
    path: string,
    init: { headers: Record<string, string>; body: string; stream: boolean },
    signal: AbortSignal,
    totalBy?: number,
    cacheKey?: string,
  ) {
    if (signal.aborted) throw transportFailure(new Error('aborted before dispatch'), signal);
    const controller = new AbortController();
    const onAbort = () => controller.abort();
    signal.addEventListener('abort', onAbort, { once: true });
    let expired: 'headers' | 'total' | undefined;
    let headersIn = false;
    const totalLeft = totalBy === undefined ? Number.POSITIVE_INFINITY : totalBy - performance.now();
    const totalFirst = totalLeft <= timeoutMs;
    const onTimer = () => {
      // Past the header deadline with the headers in: wait out the rest of the total (a body slower than timeoutMs).
      const left = headersIn && !totalFirst && totalBy !== undefined ? totalBy - performance.now() : 0;
      if (left >= 1) timer = setTimeout(onTimer, left);
      else {
        expired = headersIn || totalFirst ? 'total' : 'headers';
        controller.abort();
      }
    };
    let timer = setTimeout(onTimer, totalFirst ? Math.max(0, totalLeft) : timeoutMs);
    const detach = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
    };
    const failure = (e: unknown) => transportFailure(e, signal, expired === 'total');
    let res: Sent;
    try {
      res = await dispatch(replicas[pickReplica(opts.baseUrls, cacheKey, counter++)], path, {
        method: 'POST',
        headers: init.headers,
        body: init.body,
        signal: controller.signal,
        // undici's own timers tick in half seconds and may fire early or late: ours above is the one that counts.
        headersTimeout: timeoutMs + 1000,
        bodyTimeout: init.stream ? timeoutMs : 0,
      });
    } catch (e) {
      detach();
      throw expired === 'headers' ? new EngineError('timeout', `the upstream sent no response headers within ${timeoutMs} ms`) : failure(e);
    }
    headersIn = true;
    // A stream's body is bounded by undici's body timeout and the caller's signal only.
    if (totalBy === undefined) clearTimeout(timer);
    if (res.statusCode !== 200) {
      try {
        throw await failureFrom(res.statusCode, res.body);
      } finally {
        detach();
      }
    }
    return { res, detach, failure };
  }

  function post(req: EngineRequest, stream: boolean, totalBy?: number) {
    return send(
      '/chat/completions',
      {
        headers: { ...headers, 'x-request-id': req.requestId, accept: stream ? 'text/event-stream' : 'application/json' },
        body: upstreamBody(opts, req, stream),
        stream,
      },
      req.signal,
      totalBy,
      req.cacheKey,
    );
  }

  /** A non-streamed call's JSON body, read under its deadlines. */
  async function readJsonBody({ res, detach, failure }: Awaited<ReturnType<typeof send>>): Promise<Record<string, any>> {
    try {
      return (await res.body.json()) as Record<string, any>;
    } catch (e) {
      throw failure(e);
    } finally {
      detach();
    }
  }

  /** A non-streamed JSON POST to `path` on one replica, under the total timeout. */
  async function postJson(path: string, body: string, requestId: string, signal: AbortSignal): Promise<Record<string, any>> {
    const totalBy = performance.now() + totalTimeoutMs;
    return readJsonBody(
      await send(path, { headers: { ...headers, 'x-request-id': requestId, accept: 'application/json' }, body, stream: false }, signal, totalBy),
    );
  }

  return {
    async embed(inputs: string[], o: EmbedOptions): Promise<EmbedResult> {
      // Floats on the upstream leg: every OpenAI-compatible server speaks them; base64 is made here when asked for.
      const body = JSON.stringify({ model: opts.model, input: inputs, encoding_format: 'float', dimensions: o.dimensions });
      const j = await postJson('/embeddings', body, o.requestId, o.signal);
      const promptTokens = typeof j.usage?.prompt_tokens === 'number' ? j.usage.prompt_tokens : undefined;
      return { vectors: vectorsFrom(j, inputs.length), promptTokens };
    },

    router: `openai:${opts.baseUrls.length > 1 ? `${opts.baseUrls.length} replicas` : new URL(opts.baseUrls[0]).host}`,

    async complete(req) {
      // The total timeout counts from here, the header timeout from dispatch.
      const totalBy = performance.now() + totalTimeoutMs;
      const j = await readJsonBody(await post(req, false, totalBy));
      if (!Array.isArray(j.choices)) throw new EngineError('failed', 'the upstream answered without choices');
      return { choices: j.choices, usage: normaliseUsage(j.usage) } satisfies EngineCompletion;
    },

    async close() {
      await agent.destroy().catch(() => undefined);
    },

    async *stream(req) {
      const { res, detach } = await post(req, true);
      try {
        for await (const data of sseData(res.body)) {
          if (data === '[DONE]') return;
          let j: Record<string, any>;
          try {
            j = JSON.parse(data);
          } catch {
            throw new EngineError('failed', 'the upstream sent a malformed stream event');
          }
          if (j.error) throw new EngineError('failed', String(j.error.message ?? 'upstream stream error'));
          yield { choices: Array.isArray(j.choices) ? j.choices : [], usage: normaliseUsage(j.usage) } satisfies EngineChunk;
        }
        throw new EngineError('failed', 'the upstream stream ended without [DONE]');
      } catch (e) {
        throw transportFailure(e, req.signal);
      } finally {
        detach();
        if (!res.body.destroyed) res.body.destroy();
      }
    },
  };
}
