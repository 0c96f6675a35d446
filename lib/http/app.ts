// The browser app's API under /api/app, served by this layer beside /api/v1: the router built from the route map
// (lib/http/app-route-map.ts; each handler carries its declared auth, lib/http/app-route.ts) and the bridge between
// node:http and the handlers' Web-standard Request and Response. Responses stream with backpressure (the generation event streams), and a client that goes away cancels
// the body, which ends the handler's stream.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import type { AppRoutes } from './app-backend.ts';
import { type EventFeed, feedOf } from './app-events.ts';
import { APP_ROUTE_MAP } from './app-route-map.ts';
import { type AppRouteHandler, jsonTextOf, type RequestInfo } from './app-route.ts';
import { isJsonContentType, readBody } from './body.ts';
import { sendJsonText } from './respond.ts';
import { Router } from './router.ts';

export const APP_PREFIX = '/api/app';

export function appRouter(routes: AppRoutes): Router<AppRouteHandler> {
  const r = new Router<AppRouteHandler>(APP_PREFIX);
  for (const [key, name] of Object.entries(APP_ROUTE_MAP)) {
    const space = key.indexOf(' ');
    r.add(key.slice(0, space), key.slice(space + 1), routes[name]);
  }
  return r;
}

/**
 * The node request as a Web Request (the body streamed, not buffered: the handler's reader applies its own cap), or
 * without a body when `bodyRead` (the server read it for the handler: readDeclaredJson).
 */
export function toWebRequest(req: IncomingMessage, url: URL, signal: AbortSignal, bodyRead = false): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || name.startsWith(':')) continue;
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else headers.set(name, value);
  }
  const method = req.method ?? 'GET';
  const hasBody = method !== 'GET' && method !== 'HEAD' && !bodyRead;
  return new Request(url, {
    method,
    headers,
    signal,
    body: hasBody ? (Readable.toWeb(req) as ReadableStream<Uint8Array>) : undefined,
    ...(hasBody ? { duplex: 'half' } : {}),
  } as RequestInit);
}

/**
 * The JSON body of a route that declares one, read here with the node reader when it can be read whole within the
 * route's limit (a JSON type and a Content-Length no larger): no Web stream adapter between the socket and the
 * handler. Anything else (no length, another type, too large) is left to the handler's own checks and their errors.
 */
export async function readDeclaredJson(req: IncomingMessage, route: AppRouteHandler): Promise<Buffer | undefined> {
  const limit = route.jsonBodyLimit;
  const method = req.method ?? 'GET';
  if (limit === undefined || method === 'GET' || method === 'HEAD' || !isJsonContentType(req.headers['content-type'])) return undefined;
  const declared = req.headers['content-length'];
  if (declared === undefined || req.headers['transfer-encoding'] !== undefined || !(Number(declared) <= limit)) return undefined;
  return readBody(req, limit);
}

/**
 * Writes a handler's Response, with the layer's own headers (the request id) added. A JSON body is written as the
 * API writes its own: compressed when it is large and the client accepts it.
 */
export async function writeWebResponse(req: IncomingMessage, res: ServerResponse, response: Response, extra: Record<string, string>): Promise<void> {
  // Header names are case-insensitive: the layer's own (`X-Content-Type-Options`) and a handler's
  // (`x-content-type-options`) are one header, sent once, the handler's value winning.
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(extra)) headers[name.toLowerCase()] = value;
  for (const [name, value] of response.headers) if (name !== 'set-cookie') headers[name] = value;
  const cookies = response.headers.getSetCookie();
  if (cookies.length) headers['set-cookie'] = cookies;
  const type = response.headers.get('content-type');
  if (response.body && type?.startsWith('application/json') && !response.headers.has('content-encoding')) {
    delete headers['content-length'];
    return sendJsonText(req, res, response.status, jsonTextOf(response) ?? (await response.text()), headers);
  }
  const feed = feedOf(response);
  if (feed) return writeEvents(res, response.status, headers, feed);
  res.writeHead(response.status, headers);
  if (!response.body) {
    res.end();
    return;
  }
  res.flushHeaders();
  const reader = response.body.getReader();
  const cancel = () => void reader.cancel().catch(() => undefined);
  res.once('close', cancel);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done || res.destroyed) break;
      if (!res.write(value))
        await new Promise<void>((resolve) => {
          const go = () => (res.off('drain', go), res.off('close', go), resolve());
          res.on('drain', go);
          res.on('close', go);
        });
    }
  } catch {
    // The body's source failed or was cancelled: end what was sent.
  } finally {
    res.off('close', cancel);
    if (!res.destroyed) res.end();
  }
}

/**
 * An event reply (lib/http/app-events.ts) written as its events come, straight to the node response; resolves once it
 * ends, by its source or because the client went away (which only detaches: the source goes on without this reader).
 */
function writeEvents(res: ServerResponse, status: number, headers: Record<string, string | string[]>, feed: EventFeed): Promise<void> {
  res.writeHead(status, headers);
  return new Promise<void>((resolve) => {
    let wrote = false;
    let stop: (() => void) | undefined;
    const gone = () => {
      stop?.();
      resolve();
    };
    res.once('close', gone);
    stop = feed.attach(
      (frame) => {
        wrote = true;
        // No wait for a drain: the source is a generation that goes on regardless, so what a slow reader has not taken
        // waits in the response's buffer, as it waited in the Web stream's queue.
        if (!res.destroyed) res.write(frame);
      },
      () => {
        res.off('close', gone);
        if (!res.destroyed) res.end();
        resolve();
      },
    );
    // A client gone before the stream began: nothing waits for it.
    if (res.destroyed) gone();
    // The head leaves with the first event; flushed alone only when none is at hand yet.
    else if (!wrote && !res.writableEnded) res.flushHeaders();
  });
}

export type { RequestInfo };

/** The most of an unread request body drained so its connection can serve the next request; past it, it is closed. */
const DRAIN_MAX_BYTES = 1024 * 1024;

/**
 * After the answer: what the handler did not read of the body (a 415 or 403 before any reading) is read and dropped.
 * The Web Request's stream adapter keeps the node request paused, so Node does not dump it itself, and a socket
 * closed with unread bytes is reset: the client would see ECONNRESET instead of the answer already sent.
 */
export function drainUnread(req: IncomingMessage): void {
  if (req.complete || req.destroyed) return;
  let left = DRAIN_MAX_BYTES;
  req.removeAllListeners('data');
  req.on('data', (chunk: Buffer) => {
    left -= chunk.length;
    if (left < 0) req.destroy();
  });
  req.resume();
}
