// The browser app's routes as declarations: each says what it needs (no session, a same-site Origin, a session, a
// session and the CSRF token), and appRoute() enforces that in one order before the handler runs: the session from
// the cookie, the CSRF check, then the handler with JSON bodies read by the shared reader and errors in the one error
// body. Handlers are Web-standard (Request → Response); the lean HTTP layer (lib/http/app.ts) serves them under
// /api/app, and tests call them directly with the same checks.
import { refuseDisabledAccount } from '../accounts/accounts.ts';
import { ApiError, toApiError } from '../api/errors.ts';
import { isJsonContentType, parseJsonText, tooLarge } from './body.ts';
import { checkCsrf, checkOrigin, CSRF_HEADER } from '../users/csrf.ts';
import { parseCookies, readSession, SESSION_COOKIE } from '../users/sessions.ts';
import type { User } from '../users/users.ts';
import type { Store } from '../db/store.ts';
import type { AppDeps } from './app-deps.ts';
import { log } from '../log.ts';

export type Params = Record<string, string>;

/** What only the server knows of a request: the client's address (the trusted-proxy rule applied) and its id. */
export interface RequestInfo {
  ip: string;
  requestId?: string;
  /** The session the server already read from the cookie (null: none, or not valid); undefined: not read yet. */
  session?: SessionCtx | null;
}

export type RouteHandler = (req: Request, params: Params, info?: RequestInfo) => Promise<Response>;

/**
 * - `none`: anyone (the handler may read an optional session itself);
 * - `origin`: anyone, but a foreign Origin or a cross-site Sec-Fetch-Site is refused (sign-up, sign-in: no session
 *   exists yet, so no CSRF token);
 * - `session`: a signed-in user, for safe methods;
 * - `session+csrf`: a signed-in user whose request carries the session's CSRF token from this site.
 */
export type AppAuth = 'none' | 'origin' | 'session' | 'session+csrf';

/** A declared app route: a RouteHandler that carries its declaration, so the route table can check it. */
export interface AppRouteHandler extends RouteHandler {
  readonly auth: AppAuth;
}

export interface AppCall {
  req: Request;
  params: Params;
  /** The client's address ('unknown' when the caller did not say, as in a test calling a handler directly). */
  ip: string;
}
export interface SessionCall extends AppCall {
  session: SessionCtx;
}

const UNKNOWN_INFO: RequestInfo = { ip: 'unknown' };

export interface SessionCtx {
  user: User;
  csrfToken: string;
  /** Set while the operator has disabled the user's account: requireSession refuses such a session. */
  accountDisabledAt?: number | null;
}

const NO_STORE = { 'cache-control': 'no-store' };

export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json; charset=utf-8', ...NO_STORE, ...headers } });
}

export const noContent = (headers: Record<string, string> = {}): Response => new Response(null, { status: 204, headers: { ...NO_STORE, ...headers } });

export function errorResponse(e: unknown): Response {
  const err = toApiError(e);
  if (err.code === 'UNKNOWN_ERROR' && err !== e) log.error({ err: e }, 'app route failed');
  return json(err.toBody(), err.status, err.headers ?? {});
}

/** Reads a JSON object body with the API's reader rules: 415 unless JSON, 413 over `limit` bytes, 400 when it does not parse. */
export async function readJson(req: Request, limit = 1_000_000): Promise<Record<string, unknown>> {
  if (!isJsonContentType(req.headers.get('content-type') ?? undefined)) {
    throw new ApiError('INVALID_CONTENT_TYPE', `Invalid request content-type: expected application/json, got ${req.headers.get('content-type') ?? 'none'}`);
  }
  const declared = Number(req.headers.get('content-length') ?? '0');
  if (declared > limit) throw tooLarge(limit);
  const body = parseJsonText((await readBytes(req, limit)).toString('utf8'));
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw new ApiError('INVALID_REQUEST', 'The request body must be a JSON object');
  return body as Record<string, unknown>;
}

/** The raw request body, refused (413) past `limit` bytes whether or not Content-Length said so. */
export async function readBytes(req: Request, limit: number): Promise<Buffer> {
  if (Number(req.headers.get('content-length') ?? '0') > limit) throw tooLarge(limit);
  if (!req.body) return Buffer.alloc(0);
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      throw tooLarge(limit);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

/** The signed-in user, or undefined. */
export async function optionalSession(deps: AppDeps, req: Request): Promise<SessionCtx | undefined> {
  return sessionOfCookie(deps.svc.store, req.headers.get('cookie') ?? undefined);
}

/** The session a Cookie header names, or undefined. */
export async function sessionOfCookie(store: Store, cookie: string | undefined): Promise<SessionCtx | undefined> {
  const token = parseCookies(cookie)[SESSION_COOKIE];
  if (!token) return undefined;
  const s = await readSession(store, token);
  return s && { user: s.user, csrfToken: s.csrfToken, accountDisabledAt: s.accountDisabledAt };
}

/**
 * The signed-in user (401 otherwise); with `csrf`, the request must also pass the CSRF check (403). `known`: the
 * session the server read already (lib/http/server.ts reads it once, for the abuse block), else the cookie is read.
 */
async function requireSession(deps: AppDeps, req: Request, csrf: boolean, known?: SessionCtx | null): Promise<SessionCtx> {
  const s = known === undefined ? await optionalSession(deps, req) : (known ?? undefined);
  if (!s) throw new ApiError('AUTHENTICATION_FAILED', 'Sign in to continue');
  refuseDisabledAccount(s.accountDisabledAt);
  if (csrf) {
    checkSessionCsrf(req, s);
  }
  return s;
}

/** The session's CSRF token and this site's Origin, whatever the method (the route's declaration decided to check). */
export function checkSessionCsrf(req: Request, s: SessionCtx): void {
  checkCsrf({
    method: 'POST',
    origin: req.headers.get('origin'),
    host: requestHost(req),
    headerToken: req.headers.get(CSRF_HEADER),
    sessionCsrf: s.csrfToken,
  });
}

const requestHost = (req: Request) => req.headers.get('x-forwarded-host') ?? req.headers.get('host');

/** Refuses a foreign Origin or a cross-site Sec-Fetch-Site (the routes that run before any session exists). */
export function refuseForeignOrigin(req: Request): void {
  checkOrigin(req.headers.get('origin'), requestHost(req), req.headers.get('sec-fetch-site'));
}

/** Declares a route: its checks run in order (origin or session, then CSRF), then the handler; failures become the one error body. */
export function appRoute(deps: AppDeps, auth: 'session' | 'session+csrf', fn: (call: SessionCall) => Promise<Response>): AppRouteHandler;
export function appRoute(deps: AppDeps, auth: 'none' | 'origin', fn: (call: AppCall) => Promise<Response>): AppRouteHandler;
export function appRoute(deps: AppDeps, auth: AppAuth, fn: (call: SessionCall) => Promise<Response>): AppRouteHandler {
  const handler = async (req: Request, params: Params, info: RequestInfo = UNKNOWN_INFO): Promise<Response> => {
    try {
      const call = { req, params, ip: info.ip } as SessionCall;
      if (auth === 'origin') refuseForeignOrigin(req);
      else if (auth === 'session' || auth === 'session+csrf') call.session = await requireSession(deps, req, auth === 'session+csrf', info.session);
      return await fn(call);
    } catch (e) {
      return errorResponse(e);
    }
  };
  return Object.assign(handler, { auth });
}

/** True when the browser reached us over https (directly or through a proxy), so cookies get `Secure`. */
export function isHttps(req: Request): boolean {
  const proto = req.headers.get('x-forwarded-proto')?.split(',')[0]?.trim();
  return proto ? proto === 'https' : new URL(req.url).protocol === 'https:';
}
