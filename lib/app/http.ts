// Web-standard (Request → Response) plumbing for the browser app's route handlers: the session from the cookie, the
// CSRF check, JSON bodies with a size cap, and the service's one error body. Next's route files only forward here.
import { ApiError, toApiError } from '../api/errors.ts';
import { checkCsrf, CSRF_HEADER } from '../users/csrf.ts';
import { parseCookies, readSession, SESSION_COOKIE } from '../users/sessions.ts';
import type { User } from '../users/users.ts';
import type { AppDeps } from './deps.ts';

export type Params = Record<string, string>;
export type RouteHandler = (req: Request, params: Params) => Promise<Response>;

export interface SessionCtx {
  user: User;
  csrfToken: string;
}

const NO_STORE = { 'cache-control': 'no-store' };

export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json; charset=utf-8', ...NO_STORE, ...headers } });
}

export const noContent = (headers: Record<string, string> = {}): Response => new Response(null, { status: 204, headers: { ...NO_STORE, ...headers } });

export function errorResponse(e: unknown): Response {
  const err = toApiError(e);
  if (err.code === 'UNKNOWN_ERROR' && err !== e) console.error('app route failed:', e);
  return json(err.toBody(), err.status, err.headers ?? {});
}

/** Reads a JSON object body: 415 unless JSON, 413 over `limit` bytes, 400 when it does not parse. */
export async function readJson(req: Request, limit = 1_000_000): Promise<Record<string, unknown>> {
  const type = req.headers.get('content-type') ?? '';
  if (!/^application\/json\b/i.test(type)) throw new ApiError('INVALID_CONTENT_TYPE', 'Send the body as application/json');
  const declared = Number(req.headers.get('content-length') ?? '0');
  if (declared > limit) throw new ApiError('PAYLOAD_TOO_LARGE');
  const text = await readCapped(req, limit);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new ApiError('INVALID_JSON');
  }
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw new ApiError('INVALID_REQUEST', 'The request body must be a JSON object');
  return body as Record<string, unknown>;
}

async function readCapped(req: Request, limit: number): Promise<string> {
  if (!req.body) return '';
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      throw new ApiError('PAYLOAD_TOO_LARGE');
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The signed-in user, or undefined. */
export async function optionalSession(deps: AppDeps, req: Request): Promise<SessionCtx | undefined> {
  const token = parseCookies(req.headers.get('cookie') ?? undefined)[SESSION_COOKIE];
  const s = await readSession(deps.svc.store, token);
  return s && { user: s.user, csrfToken: s.csrfToken };
}

/** The signed-in user (401 otherwise); state-changing methods must also pass the CSRF check (403). */
export async function requireSession(deps: AppDeps, req: Request): Promise<SessionCtx> {
  const s = await optionalSession(deps, req);
  if (!s) throw new ApiError('AUTHENTICATION_FAILED', 'Sign in to continue');
  checkCsrf({
    method: req.method,
    origin: req.headers.get('origin'),
    host: req.headers.get('x-forwarded-host') ?? req.headers.get('host'),
    headerToken: req.headers.get(CSRF_HEADER),
    sessionCsrf: s.csrfToken,
  });
  return s;
}

/** True when the browser reached us over https (directly or through a proxy), so cookies get `Secure`. */
export function isHttps(req: Request): boolean {
  const proto = req.headers.get('x-forwarded-proto')?.split(',')[0]?.trim();
  return proto ? proto === 'https' : new URL(req.url).protocol === 'https:';
}

/** Wraps a handler so every failure becomes the one error body. */
export const route =
  (fn: RouteHandler): RouteHandler =>
  async (req, params) => {
    try {
      return await fn(req, params);
    } catch (e) {
      return errorResponse(e);
    }
  };
