// The browser app's routes as declarations: each says what it needs (no session, a same-site Origin, a session, a
// session and the CSRF token) and, where it takes one, the schema of its JSON body and query. appRoute() enforces
// that in one order before the handler runs: the session from the cookie, the CSRF check, the body and query parsed
// (400s in the API's validation body), then the handler; errors become the one error body. Handlers answer with a
// Response whose JSON type the compiler knows (JsonReply), so the route map (lib/http/app-route-map.ts) gives the
// browser's client each route's body and reply types. The lean HTTP layer (lib/http/app.ts) serves them under
// /api/app, and tests call them directly with the same checks.
import { refuseDisabledAccount } from '../accounts/accounts.ts';
import { ApiError, toApiError } from '../api/errors.ts';
import { isJsonContentType, parseJsonBytes, tooLarge } from './body.ts';
import { checkCsrf, checkOrigin, CSRF_HEADER } from '../users/csrf.ts';
import { parseCookies, readSession, SESSION_COOKIE } from '../users/sessions.ts';
import type { User } from '../users/users.ts';
import { requireOperator } from '../users/operator.ts';
import type { Store } from '../db/store.ts';
import type { AppDeps } from './app-deps.ts';
import { log } from '../log.ts';
import type { z } from 'zod';
import { validationError } from '../api/validation.ts';
import { wireNames } from '../api/wire.ts';
import { newRequestId } from './request-id.ts';

export type Params = Record<string, string>;

/** What only the server knows of a request: the client's address (the trusted-proxy rule applied) and its id. */
export interface RequestInfo {
  ip: string;
  requestId?: string;
  /** The session the server already read from the cookie (null: none, or not valid); undefined: not read yet. */
  session?: SessionCtx | null;
  /**
   * The JSON body's bytes, read by the server before the handler (a route that declares a body, its content type
   * JSON and its Content-Length within the route's limit); the Request then carries no body of its own.
   */
  body?: Buffer;
}

export type RouteHandler = (req: Request, params: Params, info?: RequestInfo) => Promise<Response>;

/**
 * - `none`: anyone (the handler may read an optional session itself);
 * - `origin`: anyone, but a foreign Origin or a cross-site Sec-Fetch-Site is refused (sign-up, sign-in: no session
 *   exists yet, so no CSRF token);
 * - `session`: a signed-in user, for safe methods;
 * - `session+csrf`: a signed-in user whose request carries the session's CSRF token from this site;
 * - `operator`, `operator+csrf`: the same, and the user is this server's operator (403 otherwise).
 */
export type AppAuth = 'none' | 'origin' | 'session' | 'session+csrf' | 'operator' | 'operator+csrf';

declare const REPLY: unique symbol;
declare const BODY: unique symbol;

/** A Response that tells the compiler (only) what its JSON body is: the route map hands that type to the client. */
export type JsonReply<T> = Response & { readonly [REPLY]?: T };

/** A declared app route: a RouteHandler that carries its declaration, so the route table can check it. */
export interface AppRouteHandler<R extends Response = Response, B = unknown> extends RouteHandler {
  readonly auth: AppAuth;
  /** The declared JSON body's size limit (undefined: the route declares no body): the server may read it first. */
  readonly jsonBodyLimit?: number;
  /** Compile-time only: what the route answers, and the JSON body it takes. */
  readonly [REPLY]?: R;
  readonly [BODY]?: B;
}

/** What a route's reply is, as JSON (unknown: not JSON, such as a file or a stream; undefined: 204). */
export type ReplyOf<H> = H extends AppRouteHandler<infer R, unknown> ? (R extends JsonReply<infer T> ? T : unknown) : never;
/** The JSON body a route takes (undefined: none declared). */
export type BodyOf<H> = H extends AppRouteHandler<Response, infer B> ? B : never;

export interface AppCall {
  req: Request;
  params: Params;
  /** The client's address ('unknown' when the caller did not say, as in a test calling a handler directly). */
  ip: string;
  /** The request's id: the CF-RAY of its answer, and the request id of any usage row it makes. */
  requestId: string;
  /** Aborted when the client goes away. */
  signal: AbortSignal;
  /** The signed-in user's session, if any (the one the server already read from the cookie, else read now). */
  optionalSession(): Promise<SessionCtx | undefined>;
}
export interface SessionCall extends AppCall {
  session: SessionCtx;
}

type SessionAuth = 'session' | 'session+csrf' | 'operator' | 'operator+csrf';
type CallOf<A extends AppAuth> = A extends SessionAuth ? SessionCall : AppCall;

/** A route's declaration: who may call it and, where it takes them, its JSON body (read up to bodyLimit) and query. */
export interface AppRouteDecl<A extends AppAuth, B extends z.ZodType | undefined, Q extends z.ZodType | undefined> {
  auth: A;
  body?: B;
  bodyLimit?: number;
  query?: Q;
}

type Parsed<B, Q> = { body: B extends z.ZodType ? z.output<B> : undefined; query: Q extends z.ZodType ? z.output<Q> : undefined };

const UNKNOWN_INFO: RequestInfo = { ip: 'unknown' };
const DEFAULT_BODY_LIMIT = 1_000_000;
/** The app's bodies are its own (camelCase, no wire word): field paths are reported as they are. */
const APP_WIRE = wireNames('service');

export interface SessionCtx {
  user: User;
  csrfToken: string;
  /** Set while the operator has disabled the user's account: requireSession refuses such a session. */
  accountDisabledAt?: number | null;
  /** The session began with a second factor (TOTP or passkey); LAGOON_OPERATOR_REQUIRE_2FA requires it of the operator. */
  secondFactor?: boolean;
}

const NO_STORE = { 'cache-control': 'no-store' };

/** The text of each reply json() made: the server writes it as it is, without reading the Response's stream back. */
const JSON_TEXT = new WeakMap<Response, string>();

export function json<T>(body: T, status = 200, headers: Record<string, string> = {}): JsonReply<T> {
  const text = JSON.stringify(body);
  const response = new Response(text, { status, headers: { 'content-type': 'application/json; charset=utf-8', ...NO_STORE, ...headers } });
  JSON_TEXT.set(response, text);
  return response;
}

/** The JSON text of a reply json() made whose body nobody read yet; undefined for any other Response. */
export const jsonTextOf = (response: Response): string | undefined => (response.bodyUsed ? undefined : JSON_TEXT.get(response));

/** The client asked for server-sent events (`Accept: text/event-stream`), where a route can answer either way. */
export const acceptsEvents = (req: Request): boolean => /(^|[\s,])text\/event-stream\b/i.test(req.headers.get('accept') ?? '');

export const noContent = (headers: Record<string, string> = {}): JsonReply<undefined> =>
  new Response(null, { status: 204, headers: { ...NO_STORE, ...headers } });

export function errorResponse(e: unknown): Response {
  const err = toApiError(e);
  if (err.code === 'UNKNOWN_ERROR' && err !== e) log.error({ err: e }, 'app route failed');
  return json(err.toBody(), err.status, err.headers ?? {});
}

/** Reads a JSON object body with the API's reader rules: 415 unless JSON, 413 over `limit` bytes, 400 when it does not parse. */
export async function readJson(req: Request, limit = DEFAULT_BODY_LIMIT): Promise<Record<string, unknown>> {
  if (!isJsonContentType(req.headers.get('content-type') ?? undefined)) {
    throw new ApiError('INVALID_CONTENT_TYPE', `Invalid request content-type: expected application/json, got ${req.headers.get('content-type') ?? 'none'}`);
  }
  const declared = Number(req.headers.get('content-length') ?? '0');
  if (declared > limit) throw tooLarge(limit);
  return jsonObject(await parseJsonBytes(await readBytes(req, limit)));
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

const OPERATOR_NEEDS_SECOND_FACTOR =
  'This server requires its operator to sign in with a second factor: set up two-step sign-in or a passkey on your account page, then sign in again with it.';

/** The signed-in user, or undefined. */
export async function optionalSession(deps: AppDeps, req: Request): Promise<SessionCtx | undefined> {
  return sessionOfCookie(deps.svc.store, req.headers.get('cookie') ?? undefined);
}

/** The session a Cookie header names, or undefined. */
export async function sessionOfCookie(store: Store, cookie: string | undefined): Promise<SessionCtx | undefined> {
  const token = parseCookies(cookie)[SESSION_COOKIE];
  if (!token) return undefined;
  const s = await readSession(store, token);
  return s && { user: s.user, csrfToken: s.csrfToken, accountDisabledAt: s.accountDisabledAt, secondFactor: s.secondFactor };
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

/** The app's one zod-to-400: the API's validation body, with `param` naming the first field at fault (forms mark it). */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  // The API's body (details, issues); the message without the API's preamble, as a form shows it beside the field.
  const { extra } = validationError(r.error, APP_WIRE);
  const issues = r.error.issues.map((i) => (i.path.length ? `${i.path.map(String).join('.')}: ${i.message}` : i.message));
  const param = r.error.issues[0]?.path.map(String).join('.');
  throw new ApiError('INVALID_REQUEST', issues.join('; '), { ...extra, ...(param ? { param } : {}) });
}

/** A JSON body that may be absent: no body, or an empty one, reads as {}. */
async function bodyOf(req: Request, limit: number, read: Buffer | undefined): Promise<unknown> {
  // Read by the server already (its type checked and its size within the limit): readJson's rules on those bytes.
  if (read !== undefined) return read.length === 0 ? {} : jsonObject(await parseJsonBytes(read));
  if (!req.body || req.headers.get('content-length') === '0') return {};
  return readJson(req, limit);
}

function jsonObject(body: unknown): Record<string, unknown> {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw new ApiError('INVALID_REQUEST', 'The request body must be a JSON object');
  return body as Record<string, unknown>;
}

/**
 * Declares a route: its checks run in order (origin or session, then CSRF, then the declared body and query), then
 * the handler; failures become the one error body.
 */
export function appRoute<A extends AppAuth, R extends Response, B extends z.ZodType | undefined = undefined, Q extends z.ZodType | undefined = undefined>(
  deps: AppDeps,
  decl: A | AppRouteDecl<A, B, Q>,
  fn: (call: CallOf<A> & Parsed<B, Q>) => Promise<R>,
): AppRouteHandler<R, B extends z.ZodType ? z.input<B> : undefined> {
  const d: AppRouteDecl<A, B, Q> = typeof decl === 'string' ? { auth: decl } : decl;
  const { auth } = d;
  const handler = async (req: Request, params: Params, info: RequestInfo = UNKNOWN_INFO): Promise<Response> => {
    try {
      const call: AppCall & { session?: SessionCtx; body?: unknown; query?: unknown } = {
        req,
        params,
        ip: info.ip,
        requestId: info.requestId ?? newRequestId(),
        signal: req.signal,
        optionalSession: async () => (info.session === undefined ? optionalSession(deps, req) : (info.session ?? undefined)),
      };
      if (auth === 'origin') refuseForeignOrigin(req);
      else if (auth !== 'none') {
        call.session = await requireSession(deps, req, auth.endsWith('+csrf'), info.session);
        if (auth.startsWith('operator')) {
          requireOperator(call.session.user);
          if (deps.app.operatorSecondFactor && !call.session.secondFactor) throw new ApiError('FORBIDDEN', OPERATOR_NEEDS_SECOND_FACTOR);
        }
      }
      if (d.body) call.body = parseInput(d.body, await bodyOf(req, d.bodyLimit ?? DEFAULT_BODY_LIMIT, info.body));
      if (d.query) call.query = parseInput(d.query, Object.fromEntries(new URL(req.url).searchParams));
      return await fn(call as unknown as CallOf<A> & Parsed<B, Q>);
    } catch (e) {
      return errorResponse(e);
    }
  };
  return Object.assign(handler, { auth, jsonBodyLimit: d.body ? (d.bodyLimit ?? DEFAULT_BODY_LIMIT) : undefined });
}

/** True when the browser reached us over https (directly or through a proxy), so cookies get `Secure`. */
export function isHttps(req: Request): boolean {
  const proto = req.headers.get('x-forwarded-proto')?.split(',')[0]?.trim();
  return proto ? proto === 'https' : new URL(req.url).protocol === 'https:';
}
