// One process, one port, one front door: /api/v1/* (the inference service) and /api/app/* (the browser app's API)
// are answered by this layer from route tables of the same kind, /healthz here too; every other request goes to the
// page handler (Next.js: pages and static assets only), when one is attached.
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import { ApiError } from '../api/errors.ts';
import { baseHeaders, type HeaderContext } from '../api/headers.ts';
import type { AppBackend } from './app-backend.ts';
import type { Service } from '../service.ts';
import { API_PREFIX, apiRouter } from './api.ts';
import { APP_PREFIX, appRouter, drainUnread, readDeclaredJson, toWebRequest, writeWebResponse } from './app.ts';
import { recordBreach } from '../limits/breach-log.ts';
import { abuseId, type RequestCtx, tierOf } from './context.ts';
import { authorize, parseInput } from './route.ts';
import { runBilled } from './billed.ts';
import { sendReply } from './reply.ts';
import { observeRequest } from './observe.ts';
import { log } from '../log.ts';
import { METRICS_PATH, serveMetrics } from '../metrics/endpoint.ts';
import { sessionOfCookie } from './app-route.ts';
import { guard } from './guard.ts';
import { newRequestId } from './request-id.ts';
import { SafeResponse } from './safe-response.ts';
import { serveReadyz } from './readyz.ts';
import { inRequestSpan, tracing } from '../metrics/tracing.ts';
import { RECEIPT_KEYS_PATH, serveReceiptKeys } from '../billing/api-receipts.ts';
import { pageSecurityOptions, securePageRequest } from './security-headers.ts';
import { SHARE_HEADER, shareExists } from '../conversations/shares.ts';
import type { Store } from '../db/store.ts';
import { SANDBOX_PREFIX, serveSandbox } from './sandbox.ts';

export type FallbackHandler = (req: IncomingMessage, res: ServerResponse) => unknown;

export interface ServerOptions {
  /** The browser app's backend: its API is served under /api/app. */
  app?: AppBackend;
  /** Pages and static assets (the Next.js request handler). */
  pages?: FallbackHandler;
  /** Behind one reverse proxy that appends to X-Forwarded-For: its last entry is the client. */
  trustProxy?: boolean;
}

const underPrefix = (path: string, prefix: string) => path === prefix || path.startsWith(`${prefix}/`);

export interface LagoonServer {
  server: http.Server;
  /** Requests being served by the API layer (a graceful stop waits for them). */
  inFlight(): number;
}

export function createHttpServer(svc: Service, opts: ServerOptions = {}): LagoonServer {
  const api = apiRouter();
  const app = opts.app && appRouter(opts.app.routes);
  let inFlight = 0;
  const { wire, revision, hostName, timestampHeader } = svc.config;

  /** The client's address: the socket's peer, or behind a trusted proxy the last X-Forwarded-For entry. */
  function clientAddress(req: IncomingMessage): string {
    if (opts.trustProxy) {
      const xff = req.headers['x-forwarded-for'];
      const last = (Array.isArray(xff) ? xff.join(',') : (xff ?? '')).split(',').pop()?.trim();
      if (last) return last;
    }
    return req.socket.remoteAddress ?? 'unknown';
  }

  function newCtx(req: IncomingMessage, res: ServerResponse, url: URL): RequestCtx {
    const requestId = newRequestId();
    const headerCtx: HeaderContext = { wire, requestId, revision, hostName, timestamp: timestampHeader };
    const controller = new AbortController();
    let detached = false;
    res.on('close', () => {
      if (!res.writableFinished && !detached) controller.abort();
    });
    const detach = () => {
      detached = true;
    };
    return { req, res, svc, url, params: {}, requestId, headerCtx, extraHeaders: {}, signal: controller.signal, detach, ip: clientAddress(req) };
  }

  function serve(ctx: RequestCtx, run: () => Promise<void>): Promise<void> {
    if (!tracing()) return guarded(ctx, run);
    const method = ctx.req.method ?? 'GET';
    return inRequestSpan(
      ctx.req.headers,
      `${method} ${ctx.url.pathname}`,
      { 'http.request.method': method, 'url.path': ctx.url.pathname, 'lagoon.request_id': ctx.requestId, 'client.address': ctx.ip },
      () => guarded(ctx, run),
      () => ({
        name: `${method} ${ctx.route ?? ctx.url.pathname}`,
        attributes: { 'http.route': ctx.route ?? '', 'http.response.status_code': ctx.res.statusCode },
      }),
    );
  }

  function guarded(ctx: RequestCtx, run: () => Promise<void>): Promise<void> {
    inFlight++;
    return guard(
      ctx,
      async () => {
        // The app's session, read once: the abuse block counts a signed-in browser by its session, not its address.
        if (app && ctx.req.headers.cookie && underPrefix(ctx.url.pathname, APP_PREFIX)) {
          ctx.session = (await sessionOfCookie(svc.store, ctx.req.headers.cookie)) ?? null;
        }
        // A caller without a key is known by its session or its address: a blocked one is refused before anything
        // else runs (a key is checked once it authenticated: lib/http/context.ts).
        if (!ctx.req.headers.authorization) await svc.abuse.check(abuseId(ctx));
        await run();
      },
      (done) => {
        inFlight--;
        countOutcome(done);
        observeRequest(done);
      },
    );
  }

  const handleApi = (ctx: RequestCtx) =>
    serve(ctx, async () => {
      const { route, params, pattern } = api.match(ctx.req.method ?? 'GET', ctx.url.pathname.slice(API_PREFIX.length) || '/');
      ctx.params = params;
      ctx.route = pattern;
      await authorize(ctx, route);
      const produce = async () => route.handler(ctx, await parseInput(ctx, route));
      if (route.billed) await runBilled(ctx, produce);
      else await sendReply(ctx, await produce());
    });

  const handleApp = (ctx: RequestCtx) =>
    serve(ctx, async () => {
      if (!app) throw new ApiError('NOT_FOUND', 'The browser app is not served by this server');
      const { route, params, pattern } = app.match(ctx.req.method ?? 'GET', ctx.url.pathname.slice(APP_PREFIX.length) || '/');
      ctx.route = pattern;
      const body = await readDeclaredJson(ctx.req, route);
      const response = await route(toWebRequest(ctx.req, ctx.url, ctx.signal, body !== undefined), params, {
        ip: ctx.ip,
        requestId: ctx.requestId,
        session: ctx.session,
        body,
      });
      await writeWebResponse(ctx.req, ctx.res, response, baseHeaders(ctx.headerCtx));
      drainUnread(ctx.req);
    });

  /**
   * Counts a failed response towards the abuse block; the failure that starts a block is logged once. A request its
   * client abandoned is no failed attempt (editors cancel completions as users type; load tests close connections).
   */
  function countOutcome(ctx: RequestCtx) {
    const status = ctx.res.statusCode;
    if (status < 400 || ctx.signal.aborted) return;
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
      .catch((e) => log.error({ err: e }, 'abuse accounting failed'));
  }

  const { headersTimeoutMs } = svc.config.connections;
  // Deadlines are checked this often: well inside the header deadline, so a slow client is cut close to it.
  const connectionsCheckingInterval = Math.max(250, Math.min(5000, Math.floor(headersTimeoutMs / 4)));
  const server = http.createServer({ connectionsCheckingInterval, ServerResponse: SafeResponse }, (req, res) => {
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://localhost');
    } catch {
      // A request target no URL parser accepts (`GET http://[ HTTP/1.1`) still gets an answer in our error body.
      rawAnswer(res, new ApiError('INVALID_REQUEST', 'The request target is not a valid URL'));
      return;
    }
    if (!req.url?.startsWith('/')) {
      // `OPTIONS *` asks what the server allows; any other asterisk-form target is malformed. An absolute-form target
      // (`GET http://host/path`) is answered as its path, so no handler below ever sees anything but a path.
      if (req.url === '*') {
        if (req.method === 'OPTIONS') res.writeHead(204, { allow: 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS', 'content-length': '0' }).end();
        else rawAnswer(res, new ApiError('INVALID_REQUEST', 'The request target * is only for OPTIONS'));
        return;
      }
      req.url = url.pathname + url.search;
    }
    const path = url.pathname;
    if (underPrefix(path, API_PREFIX)) void handleApi(newCtx(req, res, url));
    else if (underPrefix(path, APP_PREFIX)) void handleApp(newCtx(req, res, url));
    else if (path === '/healthz') res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
    else if (path === '/readyz')
      serveReadyz(svc, req, res, url).catch((e) => {
        log.error({ err: e }, 'readiness check failed');
        if (!res.headersSent) res.writeHead(500).end();
      });
    else if (path === METRICS_PATH) void serveMetrics(svc, req, res);
    else if (underPrefix(path, SANDBOX_PREFIX)) serveSandbox(req, res, path);
    else if (path === RECEIPT_KEYS_PATH)
      serveReceiptKeys(svc, res).catch((e) => {
        log.error({ err: e }, 'could not publish the receipt keys');
        if (!res.headersSent) res.writeHead(503).end();
      });
    else if (opts.pages) {
      securePageRequest(req, res, path, pageSecurityOptions(svc.config, opts.trustProxy === true));
      const pages = opts.pages;
      markSharePage(svc.store, req, res, path)
        .then(() => pages(req, res))
        .catch((e) => {
          log.error({ err: e, path }, 'page handler failed');
          if (!res.headersSent) res.writeHead(500).end();
        });
    } else {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify(new ApiError('NOT_FOUND').toBody()));
    }
  });
  server.keepAliveTimeout = 65_000;
  guardConnections(server, svc.config.connections);
  return { server, inFlight: () => inFlight };
}

/**
 * A shared chat's page (`/s/<token>`): never indexed, and told whether its link is live (the `x-lagoon-share` request
 * header, which only the server sets), so a revoked link renders the not-found page with a 404 status.
 */
async function markSharePage(store: Store, req: http.IncomingMessage, res: http.ServerResponse, path: string): Promise<void> {
  delete req.headers[SHARE_HEADER];
  const token = /^\/s\/([^/]+)\/?$/.exec(path)?.[1];
  if (token === undefined) return;
  res.setHeader('X-Robots-Tag', 'noindex, nofollow');
  req.headers[SHARE_HEADER] = (await shareExists(store, token).catch(() => true)) ? 'live' : 'gone';
}

/** An error in our body for a request no route owns (a malformed target); the connection closes after it. */
function rawAnswer(res: http.ServerResponse, err: ApiError): void {
  const body = JSON.stringify(err.toBody());
  res.writeHead(err.status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), connection: 'close' }).end(body);
}

/** A raw HTTP answer in our error body, for sockets no request handler owns (malformed requests, refused connections). */
function rawError(code: 'INVALID_REQUEST' | 'REQUEST_HEADER_FIELDS_TOO_LARGE' | 'CLIENT_TIMEOUT' | 'TOO_MANY_CONNECTIONS', message: string): string {
  const err = new ApiError(code, message);
  const body = JSON.stringify(err.toBody());
  const reason = http.STATUS_CODES[err.status] ?? 'Error';
  return `HTTP/1.1 ${err.status} ${reason}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`;
}

/**
 * Slow and hoarding clients: headers must arrive within headersTimeoutMs and the whole request within
 * requestTimeoutMs (408), one address holds at most maxPerIp connections (503), and requests Node's parser refuses
 * (oversized headers: 431; malformed: 400) get our error body instead of a bare status line.
 */
function guardConnections(server: http.Server, c: { headersTimeoutMs: number; requestTimeoutMs: number; maxPerIp: number }): void {
  server.headersTimeout = c.headersTimeoutMs;
  server.requestTimeout = Math.max(c.requestTimeoutMs, c.headersTimeoutMs);
  const open = new Map<string, number>();
  server.on('connection', (socket) => {
    const ip = socket.remoteAddress ?? 'unknown';
    const n = (open.get(ip) ?? 0) + 1;
    if (n > c.maxPerIp) {
      socket.end(rawError('TOO_MANY_CONNECTIONS', `Too many open connections from this address (at most ${c.maxPerIp})`));
      return;
    }
    open.set(ip, n);
    socket.once('close', () => {
      const left = (open.get(ip) ?? 1) - 1;
      if (left > 0) open.set(ip, left);
      else open.delete(ip);
    });
  });
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
    if (!socket.writable || err.code === 'ECONNRESET') return void socket.destroy();
    if (err.code === 'HPE_HEADER_OVERFLOW') socket.end(rawError('REQUEST_HEADER_FIELDS_TOO_LARGE', 'The request headers are too large'));
    else if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') socket.end(rawError('CLIENT_TIMEOUT', 'The request was not received in time'));
    else socket.end(rawError('INVALID_REQUEST', 'The request is not valid HTTP'));
  });
}
