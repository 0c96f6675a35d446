// One process, one port: /api/v1/* and /healthz are answered here by the lean layer; every other request goes to
// the Next.js handler (the browser app), when one is attached.
import { randomUUID } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import { ApiError, toApiError } from '../api/errors.ts';
import type { HeaderContext } from '../api/headers.ts';
import type { Service } from '../service.ts';
import { apiRouter } from './api.ts';
import { recordBreach } from '../limits/breach-log.ts';
import { abuseId, type RequestCtx, tierOf } from './context.ts';
import { fail } from './send.ts';

export type FallbackHandler = (req: IncomingMessage, res: ServerResponse) => unknown;

const API_PREFIX = '/api/v1';

// Request ids: a ms-time prefix (so usage rows keyed by them append to their index rather than land on random
// pages), a per-process counter, and a random per-process suffix that keeps instances apart. 24 hex characters.
const PROCESS_SUFFIX = randomUUID().replaceAll('-', '').slice(0, 7);
let counter = 0;
const newRequestId = () =>
  Date.now().toString(16).padStart(11, '0') + ((counter = (counter + 1) & 0xffffff).toString(16).padStart(6, '0')) + PROCESS_SUFFIX;

export interface LagoonServer {
  server: http.Server;
  /** Requests being served by the API layer (a graceful stop waits for them). */
  inFlight(): number;
}

export function createHttpServer(svc: Service, fallback?: FallbackHandler): LagoonServer {
  const router = apiRouter();
  let inFlight = 0;
  const { wire, revision, hostName, timestampHeader } = svc.config;

  async function handleApi(req: IncomingMessage, res: ServerResponse, url: URL) {
    const requestId = newRequestId();
    const headerCtx: HeaderContext = { wire, requestId, revision, hostName, timestamp: timestampHeader };
    const controller = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) controller.abort();
    });
    const ctx: RequestCtx = { req, res, svc, url, params: {}, requestId, headerCtx, extraHeaders: {}, signal: controller.signal };
    inFlight++;
    try {
      // A caller without a key is known only by its IP: a blocked one is refused before anything else runs.
      if (!req.headers.authorization) await svc.abuse.check(abuseId(ctx));
      const { handler, params } = router.match(req.method ?? 'GET', url.pathname.slice(API_PREFIX.length) || '/');
      ctx.params = params;
      await handler(ctx);
    } catch (e) {
      const err = toApiError(e);
      if (!(e instanceof ApiError)) console.error(`[${requestId}] ${req.method} ${url.pathname} failed:`, e);
      if (!res.headersSent) fail(ctx, err);
      else res.destroy();
    } finally {
      inFlight--;
      countOutcome(ctx);
    }
  }

  /** Counts a failed response towards the abuse block; the failure that starts a block is logged once. */
  function countOutcome(ctx: RequestCtx) {
    const status = ctx.res.statusCode;
    if (status < 400) return;
    svc.abuse
      .record(abuseId(ctx), status)
      .then((blocked) => {
        if (!blocked) return;
        const p = ctx.principal;
        return recordBreach(svc.store, {
          accountId: p?.accountId ?? null,
          keyId: p?.keyId ?? null,
          modelId: `endpoint:${ctx.url.pathname}`,
          type: 'FAILED_REQUESTS',
          tier: p ? tierOf(p) : 'default',
        });
      })
      .catch((e) => console.error('abuse accounting failed:', e));
  }

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname === API_PREFIX || url.pathname.startsWith(`${API_PREFIX}/`)) {
      void handleApi(req, res, url);
    } else if (url.pathname === '/healthz') {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
    } else if (fallback) {
      Promise.resolve(fallback(req, res)).catch((e) => {
        console.error('page handler failed:', e);
        if (!res.headersSent) res.writeHead(500).end();
      });
    } else {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify(new ApiError('NOT_FOUND').toBody()));
    }
  });
  server.keepAliveTimeout = 65_000;
  return { server, inFlight: () => inFlight };
}
