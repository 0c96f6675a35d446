// Any OpenAI-compatible upstream (vLLM, SGLang, llama.cpp server, Ollama, hosted APIs). Streams pass through chunk
// by chunk; usage is requested with stream_options.include_usage; the caller's AbortSignal aborts the upstream
// request, so an engine like vLLM stops generating when our client goes away.
import type { Readable } from 'node:stream';
import { Agent, errors as undiciErrors, request } from 'undici';
import type { EmbedOptions, EmbedResult, Engine, EngineChunk, EngineCompletion, EngineRequest, EngineUsage } from './types.ts';
import { EngineError } from './types.ts';
import { sseData } from './sse.ts';
import { fromBase64, type Vector } from './vectors.ts';
import { DEFAULT_MAX_CONCURRENCY } from '../queue.ts';
import { recordReplicaAttempt } from '../../metrics/registry.ts';
import { Fleet, type FleetOptions, type Outcome, type Replica, registerFleet, unregisterFleet } from './fleet/fleet.ts';
import { DEFAULT_PREFIX_CHARS, prefixKey } from './fleet/prefix.ts';
import { metricsUrl, parseRemoteLoad } from './fleet/remote-load.ts';
import { holdsChars, OFF_LOOP_JSON_BYTES, parseJsonOffLoop, stringifyOffLoop } from '../../json/off-loop.ts';
import { readAll, readShared } from '../../json/shared-bytes.ts';

/** Vectors in input order from an OpenAI embeddings body; floats, or base64 from an upstream that ignores the ask. */
function vectorsFrom(j: Record<string, any>, count: number): Vector[] {
  if (!Array.isArray(j.data) || j.data.length !== count)
    throw new EngineError('failed', `the upstream answered ${Array.isArray(j.data) ? j.data.length : 'no'} embeddings for ${count} inputs`);
  const out: Vector[] = new Array(count);
  for (const [pos, item] of (j.data as Record<string, any>[]).entries()) {
    const i = typeof item?.index === 'number' ? item.index : pos;
    const v = typeof item?.embedding === 'string' ? fromBase64(item.embedding) : item?.embedding;
    // A Float64Array is a long float vector the JSON thread parsed (readJsonOffLoop); a short one is still an array.
    const vector = Array.isArray(v) ? v.every((x) => typeof x === 'number') : v instanceof Float64Array;
    if (!vector || !(i >= 0 && i < count) || out[i]) throw new EngineError('failed', 'the upstream sent a malformed embedding');
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
  /** The catalogue model id (logs and metrics of its replicas). */
  name?: string;
  /** Several replicas: how requests are spread over them (lib/engines/text/fleet/). */
  fleet?: Omit<FleetOptions, 'model' | 'probe' | 'readLoad' | 'now' | 'random'> & {
    /** Characters of a conversation's start (system + first user turn) that key its replica; 0 turns keying off. */
    prefixChars?: number;
  };
}

export const DEFAULT_TIMEOUT_MS = 60_000;

/**
 * An upstream no connection could be made to (refused, no such host, no route): not one that answered badly or
 * dropped a response midway. The engine keeps only the transport error's text, which starts with its code.
 */
const NO_CONNECTION = /^upstream unreachable: (connect |getaddrinfo )?(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH)\b/;
export const isUnreachable = (e: unknown): boolean => e instanceof EngineError && e.kind === 'failed' && NO_CONNECTION.test(e.message);

/** What an attempt's error says about its replica: it answered (a bad request), failed, or could not be reached. */
function outcomeOf(e: EngineError, signal: AbortSignal): Outcome {
  if (signal.aborted) return 'neutral';
  if (e.kind === 'bad_request' || e.kind === 'context_length') return 'ok';
  return isUnreachable(e) ? 'unreachable' : 'failed';
}

/** Whether another replica may take the request: a failure of this one, not of the request, and time still left. */
const retryable = (e: EngineError, signal: AbortSignal) => !signal.aborted && (e.kind === 'failed' || e.kind === 'capacity');

/** Most attempts of one request: a dead replica and a second failure are enough to give up on. */
const MAX_ATTEMPTS = 3;

function normaliseUsage(u: Record<string, any> | undefined | null): EngineUsage | undefined {
  if (!u || typeof u.prompt_tokens !== 'number') return undefined;
  return {
    prompt_tokens: u.prompt_tokens,
    completion_tokens: u.completion_tokens ?? 0,
    cached_tokens: u.prompt_tokens_details?.cached_tokens ?? undefined,
    reasoning_tokens: u.completion_tokens_details?.reasoning_tokens ?? undefined,
  };
}

/** The upstream's request body: a prompt of megabytes is written in the JSON thread, off the event loop. */
function upstreamBody(opts: OpenAIEngineOptions, req: EngineRequest, stream: boolean): string | Promise<Uint8Array> {
  const body = upstreamRequest(opts, req, stream);
  return holdsChars(req.messages) ? stringifyOffLoop(body) : JSON.stringify(body);
}

function upstreamRequest(opts: OpenAIEngineOptions, req: EngineRequest, stream: boolean) {
  const { disable_thinking, native_search, ...params } = req.params;
  // JSON.stringify leaves out undefined fields, so unset parameters never reach the upstream.
  return {
    ...params,
    model: opts.model,
    messages: req.messages,
    stream,
    stream_options: stream ? { include_usage: true } : undefined,
    chat_template_kwargs: disable_thinking && opts.thinkingControl !== 'none' ? { enable_thinking: false } : undefined,
    // xAI's live-search request field: the upstream searches the web and X and cites what it used.
    search_parameters: native_search ? { mode: 'on', return_citations: true, sources: [{ type: 'web' }, { type: 'x' }] } : undefined,
  };
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
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (opts.apiKey) headers.authorization = `Bearer ${opts.apiKey}`;
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const totalTimeoutMs = opts.totalTimeoutMs ?? 300_000;
  const model = opts.name ?? opts.model;
  const prefixChars = opts.fleet?.prefixChars ?? DEFAULT_PREFIX_CHARS;
  // Per replica, each path's origin and request path, parsed once rather than by undici's request() on every call.
  const targets = new Map<string, Map<string, { origin: string; path: string }>>();
  const fleet = new Fleet(
    opts.baseUrls.map((u) => u.replace(/\/$/, '')),
    {
      ...opts.fleet,
      model,
      probe: (base) => probeReplica(base),
      readLoad: (base) => readLoad(base),
    },
  ).start();
  registerFleet(fleet);
  const maxAttempts = Math.min(fleet.replicas.length, MAX_ATTEMPTS);

  function dispatch(base: string, path: string, o: RequestOptions): Promise<Sent> {
    let byPath = targets.get(base);
    if (!byPath) targets.set(base, (byPath = new Map()));
    let t = byPath.get(path);
    if (!t) {
      const url = new URL(`${base}${path}`);
      // Any other scheme: request() refuses it, on every call, with undici's own error.
      if (url.protocol !== 'http:' && url.protocol !== 'https:') return request(url, { ...o, dispatcher: agent });
      t = { origin: url.origin, path: url.search ? `${url.pathname}${url.search}` : url.pathname };
      byPath.set(path, t);
    }
    return agent.request({ ...o, origin: t.origin, path: t.path });
  }

  /** An ejected replica is back when its GET /models answers 200 within the probe's time. */
  async function probeReplica(base: string): Promise<boolean> {
    const bearer: Record<string, string> = opts.apiKey ? { authorization: headers.authorization } : {};
    try {
      const res = await request(`${base}/models`, { method: 'GET', headers: bearer, signal: AbortSignal.timeout(2_000), dispatcher: agent });
      await res.body.dump();
      return res.statusCode === 200;
    } catch {
      return false;
    }
  }

  /** The replica's vLLM or SGLang gauges, from its origin's /metrics; undefined when it serves none. */
  async function readLoad(base: string) {
    try {
      const res = await request(metricsUrl(base), { method: 'GET', signal: AbortSignal.timeout(2_000), dispatcher: agent });
      if (res.statusCode !== 200) {
        await res.body.dump();
        return undefined;
      }
      return parseRemoteLoad((await res.body.text()).slice(0, 1_000_000), Date.now());
    } catch {
      return undefined;
    }
  }

  /**
   * Runs `attempt` on one replica after another until one succeeds: the next replica is tried only when the failure
   * left nothing delivered (`delivered()` false: before a stream's first event, or any non-streamed failure), was
   * the replica's and not the request's, and the caller is still there. Every attempt's outcome feeds its replica's
   * health.
   */
  async function* attempts<T>(
    key: string | undefined,
    signal: AbortSignal,
    attempt: (replica: Replica) => AsyncGenerator<T, void, undefined>,
  ): AsyncGenerator<T, void, undefined> {
    const tried = new Set<Replica>();
    for (;;) {
      const replica = fleet.pick(key, tried)!;
      tried.add(replica);
      fleet.begin(replica);
      let outcome: Outcome = 'neutral';
      let delivered = false;
      try {
        for await (const v of attempt(replica)) {
          delivered = true;
          yield v;
        }
        outcome = 'ok';
        return;
      } catch (e) {
        const err = transportFailure(e, signal);
        outcome = outcomeOf(err, signal);
        if (delivered || !retryable(err, signal) || tried.size >= maxAttempts || tried.size >= fleet.replicas.length) throw err;
        fleet.retried(replica);
      } finally {
        // A consumer that stopped reading after what it needed: the replica did its part.
        if (outcome === 'neutral' && delivered && !signal.aborted) outcome = 'ok';
        fleet.end(replica, outcome);
        recordReplicaAttempt(model, replica.label, outcome);
      }
    }
  }

  /** The one value of a non-streamed call, with its retries. */
  async function once<T>(key: string | undefined, signal: AbortSignal, run: (replica: Replica) => Promise<T>): Promise<T> {
    // Read to the end (not returned from inside the loop), so the attempt ends as a success for its replica.
    let out: { v: T } | undefined;
    for await (const v of attempts(key, signal, async function* (r) {
      yield await run(r);
    }))
      out = { v };
    if (!out) throw new EngineError('failed', 'the upstream gave no answer');
    return out.v;
  }

  /**
   * Sends one request to one replica; resolves once the response headers arrive. One controller and one timer serve
   * the whole call: the caller's signal aborts it, and the timer fires at the header deadline (timeoutMs from
   * dispatch: ours, so an upstream that accepts the connection and never answers is a timeout whatever undici's
   * parser timers do) and, for a non-streamed call given `totalBy` (a performance.now() time), at the total deadline.
   * The request stays tied to both until `detach()` (the body is read after the headers); `failure(e)` maps an
   * error met while reading it. Errors before the headers are thrown mapped, the upstream's own error statuses
   * included.
   */
  async function send(
    replica: Replica,
    path: string,
    init: { headers: Record<string, string>; body: string | Uint8Array; stream: boolean },
    signal: AbortSignal,
    totalBy?: number,
  ) {
    if (signal.aborted) throw transportFailure(new Error('aborted before dispatch'), signal);
    const controller = new AbortController();
    const onAbort = () => controller.abort();
    signal.addEventListener('abort', onAbort, { once: true });
    let expired: 'headers' | 'total' | undefined;
    let headersIn = false;
    const totalLeft = totalBy === undefined ? Number.POSITIVE_INFINITY : totalBy - performance.now();
    const totalFirst = totalLeft <= timeoutMs;
    const onDue = () => {
      // A stream's headers came in during the grace turn: its body has no deadline of ours.
      if (headersIn && totalBy === undefined) return;
      // Past the header deadline with the headers in: wait out the rest of the total (a body slower than timeoutMs).
      const left = headersIn && !totalFirst && totalBy !== undefined ? totalBy - performance.now() : 0;
      if (left >= 1) timer = setTimeout(onTimer, left);
      else {
        expired = headersIn || totalFirst ? 'total' : 'headers';
        controller.abort();
      }
    };
    // A loop that stalled past the deadline (a long GC, a starved machine) runs its timers before it reads its
    // sockets: one more turn lets an answer that arrived in time count instead of becoming a timeout.
    let grace: ReturnType<typeof setImmediate> | undefined;
    const onTimer = () => {
      grace = setImmediate(onDue);
    };
    let timer = setTimeout(onTimer, totalFirst ? Math.max(0, totalLeft) : timeoutMs);
    const detach = () => {
      clearTimeout(timer);
      clearImmediate(grace);
      signal.removeEventListener('abort', onAbort);
    };
    const failure = (e: unknown) => transportFailure(e, signal, expired === 'total');
    let res: Sent;
    try {
      res = await dispatch(replica.url, path, {
        method: 'POST',
        headers: init.headers,
        body: init.body,
        signal: controller.signal,
        // Ours above is the one that counts: undici's ticks in half seconds, and after a stall it would cut the
        // socket before reading an answer already there.
        headersTimeout: 0,
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

  async function post(replica: Replica, req: EngineRequest, stream: boolean, totalBy?: number) {
    return send(
      replica,
      '/chat/completions',
      {
        headers: { ...headers, 'x-request-id': req.requestId, accept: stream ? 'text/event-stream' : 'application/json' },
        body: await upstreamBody(opts, req, stream),
        stream,
      },
      req.signal,
      totalBy,
    );
  }

  /**
   * A non-streamed call's JSON body, read under its deadlines. One of a megabyte or more (thousands of embeddings)
   * is gathered into shared memory and parsed in the JSON thread, long number arrays coming back as Float64Arrays.
   */
  async function readJsonBody({ res, detach, failure }: Awaited<ReturnType<typeof send>>): Promise<Record<string, any>> {
    try {
      const declared = res.headers['content-length'];
      const length = Number(declared);
      if (declared !== undefined && length < OFF_LOOP_JSON_BYTES) return (await res.body.json()) as Record<string, any>;
      // A chunked answer (Go servers chunk anything past 4 KB) is read whole before its size is known.
      const bytes = declared !== undefined ? await readShared(res.body, length) : await readAll(res.body, OFF_LOOP_JSON_BYTES);
      if (bytes.length < OFF_LOOP_JSON_BYTES) return JSON.parse(bytes.toString('utf8')) as Record<string, any>;
      const value = await parseJsonOffLoop(bytes, { typed: true });
      if (!value || typeof value !== 'object') throw new EngineError('failed', 'the upstream answered something other than a JSON object');
      return value as Record<string, any>;
    } catch (e) {
      throw e instanceof EngineError ? e : failure(e);
    } finally {
      detach();
    }
  }

  const keyOf = (req: EngineRequest) => (fleet.replicas.length > 1 ? prefixKey(req, prefixChars) : undefined);

  return {
    async embed(inputs: string[], o: EmbedOptions): Promise<EmbedResult> {
      // Floats on the upstream leg: every OpenAI-compatible server speaks them; base64 is made here when asked for.
      const body = JSON.stringify({ model: opts.model, input: inputs, encoding_format: 'float', dimensions: o.dimensions });
      const totalBy = performance.now() + totalTimeoutMs;
      const init = { headers: { ...headers, 'x-request-id': o.requestId, accept: 'application/json' }, body, stream: false };
      const j = await once(undefined, o.signal, async (r) => readJsonBody(await send(r, '/embeddings', init, o.signal, totalBy)));
      const promptTokens = typeof j.usage?.prompt_tokens === 'number' ? j.usage.prompt_tokens : undefined;
      return { vectors: vectorsFrom(j, inputs.length), promptTokens };
    },

    router: `openai:${opts.baseUrls.length > 1 ? `${opts.baseUrls.length} replicas` : new URL(opts.baseUrls[0]).host}`,

    async complete(req) {
      // The total timeout counts from here, over every attempt; the header timeout from each dispatch.
      const totalBy = performance.now() + totalTimeoutMs;
      return once(keyOf(req), req.signal, async (r) => {
        const j = await readJsonBody(await post(r, req, false, totalBy));
        if (!Array.isArray(j.choices)) throw new EngineError('failed', 'the upstream answered without choices');
        return { choices: j.choices, usage: normaliseUsage(j.usage) } satisfies EngineCompletion;
      });
    },

    async close() {
      fleet.stop();
      unregisterFleet(fleet);
      await agent.destroy().catch(() => undefined);
    },

    stream(req) {
      return attempts(keyOf(req), req.signal, async function* (r) {
        const { res, detach } = await post(r, req, true);
        let done = false;
        try {
          // Not destroyed on leaving the loop: at [DONE] the body's end is usually still in flight (finally below).
          for await (const data of sseData(res.body.iterator({ destroyOnReturn: false }))) {
            if (data === '[DONE]') {
              done = true;
              return;
            }
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
          if (done) finishBody(res.body);
          else if (!res.body.destroyed) {
            // The iterator no longer listens (destroyOnReturn: false leaves the body alone): undici emits an abort
            // error on destroy, which with no listener would be an uncaught exception and stop the process.
            res.body.on('error', () => {});
            res.body.destroy();
          }
        }
      });
    },
  };
}

/** How long a body may stay open after its [DONE] before it is cut. */
const DONE_GRACE_MS = 1000;

/**
 * After [DONE]: the body's end (usually in the same packet, or the next) is read and dropped, so the connection goes
 * back to its pool; cutting a body before its end costs an abort error with its stack, and the connection. One that
 * stays open past the grace is cut.
 */
function finishBody(body: Readable): void {
  if (body.readableEnded || body.destroyed) return;
  const cut = setTimeout(() => body.destroy(), DONE_GRACE_MS);
  cut.unref();
  body.once('close', () => clearTimeout(cut));
  body.on('error', () => {});
  body.resume();
}
