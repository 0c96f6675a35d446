// The scripted engine's HTTP server: starting and closing it (every socket destroyed on close), routing
// (GET /health, GET /metrics in vLLM's names, GET /v1/models, POST /v1/chat/completions, POST /v1/embeddings, 404
// otherwise), reading and parsing POST bodies, recording requests (the most recent MAX_RECORDED), the x-replica
// header on every answer, and the ScriptedEngine object tests hold. The handlers in chat.ts and embeddings.ts get
// what they share of one engine as an Upstream.

import http from 'node:http';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { chat } from './chat.ts';
import { embed } from './embeddings.ts';
import { errorBody } from './faults.ts';

export interface RecordedRequest {
  body: any;
  headers: IncomingHttpHeaders;
  at: number;
}

export interface ScriptedEngine {
  /** Base URL including /v1, e.g. http://127.0.0.1:43121/v1 */
  url: string;
  /** Replica name, sent as the x-replica response header. */
  name: string;
  /** Every chat request received (the most recent MAX_RECORDED, so long benchmarks do not grow without bound). */
  requests: RecordedRequest[];
  /** Every embeddings request received (the most recent MAX_RECORDED). */
  embeddingRequests: RecordedRequest[];
  /** Streams whose client disconnected before the end. */
  abortedStreams: number;
  /** Streams currently in progress. */
  openStreams: number;
  /** Waited before answering every chat and embeddings request; tests may change it at run time (a slow replica). */
  delayMs: number;
  /** While set, every chat request is answered with this HTTP status before any byte of an answer (a failing replica). */
  failStatus: number | undefined;
  /**
   * Added to what GET /metrics reports in vLLM's gauges (requests waiting for a slot, KV-cache use), so a test can
   * make a replica look busy to a router that reads them.
   */
  reportedLoad: { waiting: number; kvUsage: number };
  reset(): void;
  close(): Promise<void>;
}

export interface ScriptedEngineOptions {
  host?: string;
  port?: number;
  name?: string;
  /** Wait this long before answering every chat request (emulates a model's latency). */
  delayMs?: number;
  /**
   * Chat requests answered at once (a GPU server's batch, vLLM's max_num_seqs); the rest wait their turn, so a slow
   * replica's queue grows under load. Unlimited by default.
   */
  slots?: number;
}

/** What the route handlers share of one engine. */
export interface Upstream {
  engine: ScriptedEngine;
  /** The replica name (x-replica). */
  name: string;
  /** Answer `obj` as JSON with the x-replica header. */
  sendJson(res: ServerResponse, status: number, obj: unknown): void;
  /** Keep the request in engine[list] (the most recent MAX_RECORDED). */
  record(list: 'requests' | 'embeddingRequests', req: IncomingMessage, body: any): void;
  /** The next chat completion's number (chatcmpl-scripted-N). */
  nextCompletionId(): number;
  /** The next tool call's number (call_N; reset() starts them again). */
  nextToolCallId(): number;
  /** Waits for one of ScriptedEngineOptions.slots; resolves to its release (at once when slots are unlimited). */
  slot(): Promise<() => void>;
}

type Handler = (up: Upstream, req: IncomingMessage, res: ServerResponse, body: any) => Promise<void>;

const MAX_RECORDED = 10_000;

const POST_ROUTES = new Map<string, Handler>([
  ['/v1/embeddings', embed],
  ['/v1/chat/completions', chat],
]);

export async function startScriptedEngine(opts: ScriptedEngineOptions = {}): Promise<ScriptedEngine> {
  const host = opts.host ?? '127.0.0.1';
  const name = opts.name ?? 'scripted';
  const sockets = new Set<Socket>();
  let seq = 0;
  let toolSeq = 0;
  let busy = 0;
  const waiters: (() => void)[] = [];

  const sendJson = (res: ServerResponse, status: number, obj: unknown) => {
    const s = JSON.stringify(obj);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(s), 'x-replica': name });
    res.end(s);
  };

  /** Read the whole body, parse it as JSON and hand it to the handler; its failures answer 500 (or cut the socket). */
  const post = (handler: Handler, req: IncomingMessage, res: ServerResponse) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      let body: any;
      try {
        body = JSON.parse(Buffer.concat(parts).toString('utf8'));
      } catch {
        return sendJson(res, 400, errorBody('Request body is not valid JSON', 'invalid_request_error'));
      }
      handler(up, req, res, body).catch((err) => {
        if (!res.headersSent) sendJson(res, 500, errorBody(`scripted engine error: ${err?.message}`, 'server_error'));
        else res.destroy();
      });
    });
  };

  const server = http.createServer({ noDelay: true }, (req, res) => {
    const url = req.url ?? '/';
    const route = url.split('?')[0];
    if (req.method === 'GET' && route === '/health') return sendJson(res, 200, { status: 'ok' });
    if (req.method === 'GET' && route === '/metrics') {
      // vLLM's gauge names: requests holding a slot, waiting for one, and KV-cache use.
      const m = [
        `vllm:num_requests_running{model_name="scripted"} ${busy}`,
        `vllm:num_requests_waiting{model_name="scripted"} ${waiters.length + engine.reportedLoad.waiting}`,
        `vllm:kv_cache_usage_perc{model_name="scripted"} ${engine.reportedLoad.kvUsage}`,
        '',
      ].join('\n');
      res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4', 'x-replica': name });
      return res.end(m);
    }
    if (req.method === 'GET' && route === '/v1/models') {
      return sendJson(res, 200, {
        object: 'list',
        data: [{ id: 'scripted', object: 'model', created: 0, owned_by: 'scripted', max_model_len: 4096 }],
      });
    }
    const handler = req.method === 'POST' ? POST_ROUTES.get(route) : undefined;
    if (handler) return post(handler, req, res);
    sendJson(res, 404, errorBody(`No route for ${req.method} ${route}`, 'not_found_error'));
  });
  server.keepAliveTimeout = 65_000; // outlive clients' pooled keep-alive sockets, so the benchmark never races a close
  server.on('connection', (socket) => {
    socket.setNoDelay(true);
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as { port: number }).port;
  const shownHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;

  const engine: ScriptedEngine = {
    url: `http://${shownHost}:${port}/v1`,
    name,
    requests: [],
    embeddingRequests: [],
    abortedStreams: 0,
    openStreams: 0,
    delayMs: opts.delayMs ?? 0,
    failStatus: undefined,
    reportedLoad: { waiting: 0, kvUsage: 0 },
    reset() {
      engine.requests.length = 0;
      engine.embeddingRequests.length = 0;
      engine.abortedStreams = 0;
      engine.openStreams = 0;
      toolSeq = 0;
    },
    close() {
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      });
    },
  };
  const up: Upstream = {
    engine,
    name,
    sendJson,
    record(list, req, body) {
      const recorded = engine[list];
      recorded.push({ body, headers: req.headers, at: Date.now() });
      if (recorded.length > 2 * MAX_RECORDED) recorded.splice(0, recorded.length - MAX_RECORDED);
    },
    nextCompletionId: () => ++seq,
    nextToolCallId: () => ++toolSeq,
    slot() {
      if (opts.slots === undefined) return Promise.resolve(() => undefined);
      const grant = (): (() => void) => {
        busy++;
        let done = false;
        return () => {
          if (done) return;
          done = true;
          busy--;
          waiters.shift()?.();
        };
      };
      if (busy < opts.slots) return Promise.resolve(grant());
      return new Promise((resolve) => waiters.push(() => resolve(grant())));
    },
  };
  return engine;
}
