// The browser's one way to call the app's own route handlers (/api/app/*): JSON in and out, the session cookie
// sent by the browser, the CSRF token added to every state-changing request, and failures as AppApiError.
import type { AppBody, AppParams, AppReply, AppRouteKey } from '@/lib/http/app-route-map.ts';
import type { AppError } from '@/lib/wire.ts';

export const APP_API = '/api/app';

let csrfToken: string | undefined;

/** Set from the /auth/me, sign-in and sign-up responses; cleared on sign-out. */
export function setCsrfToken(token: string | undefined): void {
  csrfToken = token;
}

/**
 * The words of the failures this file makes itself (no answer; an answer without our error body), and of the
 * server's error codes, in the page's language: the catalogue's `apiClient`, handed over by the i18n provider before
 * anything is fetched.
 */
interface ClientWords {
  unreachable: string;
  requestFailed: string;
  codes: Partial<Record<string, string>>;
}
let words: ClientWords = { unreachable: 'HTTP 0', requestFailed: 'HTTP {status}', codes: {} };
export function setClientWords(w: ClientWords): void {
  words = w;
}
export const requestFailed = (status: number): string => words.requestFailed.replace('{status}', String(status));
const unreachable = () => ({ error: words.unreachable });

/**
 * What to show for a server error: the catalogue's message for its code in the page's language, else (a code the
 * catalogue has no words for, whose message is often specific: which field, which file) the server's own text.
 */
export function errorText(code: string, serverText: string): string {
  return Object.hasOwn(words.codes, code) ? (words.codes[code] ?? serverText) : serverText;
}

/** An error body's words (errorText); a body that is not the server's (no code) keeps its text or the status. */
export function errorBodyText(body: Record<string, unknown>, status: number): string {
  const text = typeof body.error === 'string' ? body.error : requestFailed(status);
  return typeof body.code === 'string' ? errorText(body.code, text) : text;
}

export class AppApiError extends Error implements AppError {
  readonly status: number;
  readonly code: string;
  readonly retryAfter?: number;
  readonly body: Record<string, unknown>;
  /** The server's own (English) message, kept for logs; `message` is what a person reads. */
  readonly serverMessage: string;

  constructor(status: number, body: Record<string, unknown>, retryAfter?: number) {
    super(errorBodyText(body, status));
    this.serverMessage = typeof body.error === 'string' ? body.error : this.message;
    this.status = status;
    this.code = typeof body.code === 'string' ? body.code : status === 0 ? 'NETWORK_ERROR' : 'UNKNOWN_ERROR';
    this.retryAfter = retryAfter;
    this.body = body;
  }
}

export interface ApiOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** A JSON body. */
  body?: unknown;
  /** A raw body instead (an uploaded file), sent with its own content type. */
  raw?: Blob;
  signal?: AbortSignal;
}

/** Calls /api/app{path}; resolves with the parsed JSON (undefined for 204), rejects with AppApiError. */
export async function api<T>(path: string, opts: ApiOptions = {}): Promise<T> {
  const method = opts.method ?? 'GET';
  const headers: Record<string, string> = { accept: 'application/json' };
  if (opts.raw !== undefined) headers['content-type'] = opts.raw.type || 'application/octet-stream';
  else if (opts.body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET' && csrfToken) headers['x-csrf-token'] = csrfToken;
  let res: Response;
  try {
    res = await fetch(APP_API + path, {
      method,
      headers,
      body: opts.raw ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body)),
      signal: opts.signal,
      credentials: 'same-origin',
    });
  } catch (e) {
    if ((e as Error).name === 'AbortError') throw e;
    throw new AppApiError(0, unreachable());
  }
  if (res.status === 204) return undefined as T;
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  if (!res.ok) {
    const ra = Number(res.headers.get('retry-after'));
    const body = json && typeof json === 'object' ? (json as Record<string, unknown>) : { error: requestFailed(res.status) };
    throw new AppApiError(res.status, body, Number.isFinite(ra) && ra > 0 ? ra : undefined);
  }
  return json as T;
}

type QueryValue = string | number | boolean | null | undefined;

/** What a call of route K sends: its path parameters, query, JSON body (or a raw file) and abort signal. */
export type CallOptions<K extends AppRouteKey> = {
  query?: Record<string, QueryValue>;
  raw?: Blob;
  signal?: AbortSignal;
} & (keyof AppParams<K> extends never ? { params?: undefined } : { params: AppParams<K> }) &
  ([AppBody<K>] extends [undefined] ? { body?: undefined } : { body: AppBody<K> });

export type CallArgs<K extends AppRouteKey> = object extends CallOptions<K> ? [opts?: CallOptions<K>] : [opts: CallOptions<K>];

/** `/images/:id` with { id } → `/images/<id, encoded>`, plus the query's set values. */
export function routePath(path: string, params: Record<string, string> = {}, query: Record<string, QueryValue> = {}): string {
  const filled = path.replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(params[name] ?? ''));
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  const qs = q.toString();
  return qs ? `${filled}?${qs}` : filled;
}

/**
 * Calls one route of the app's route map, `call('PATCH /api-keys/:id', { params: { id }, body })`: the compiler
 * checks the parameters and body against the route's handler and types the reply from it.
 */
export function call<K extends AppRouteKey>(route: K, ...[opts]: CallArgs<K>): Promise<AppReply<K>> {
  const o = (opts ?? {}) as { params?: Record<string, string>; query?: Record<string, QueryValue>; body?: unknown; raw?: Blob; signal?: AbortSignal };
  const space = route.indexOf(' ');
  const method = route.slice(0, space) as NonNullable<ApiOptions['method']>;
  return api<AppReply<K>>(routePath(route.slice(space + 1), o.params, o.query), { method, body: o.body, raw: o.raw, signal: o.signal });
}

/**
 * Calls a route whose answer is a stream (SSE): the Response itself once it is 2xx, for the caller to read; an error
 * answer rejects with AppApiError as `call` does.
 */
export async function callStream<K extends AppRouteKey>(route: K, ...[opts]: CallArgs<K>): Promise<Response> {
  const o = (opts ?? {}) as { params?: Record<string, string>; query?: Record<string, QueryValue>; body?: unknown; signal?: AbortSignal };
  const space = route.indexOf(' ');
  const method = route.slice(0, space);
  const headers: Record<string, string> = { accept: 'text/event-stream' };
  if (o.body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET' && csrfToken) headers['x-csrf-token'] = csrfToken;
  let res: Response;
  try {
    res = await fetch(APP_API + routePath(route.slice(space + 1), o.params, o.query), {
      method,
      headers,
      body: o.body === undefined ? undefined : JSON.stringify(o.body),
      signal: o.signal,
      credentials: 'same-origin',
    });
  } catch (e) {
    if ((e as Error).name === 'AbortError') throw e;
    throw new AppApiError(0, unreachable());
  }
  if (res.ok) return res;
  const body = (await res.json().catch(() => ({ error: requestFailed(res.status) }))) as Record<string, unknown>;
  throw new AppApiError(res.status, body);
}

/** TanStack Query keys, in one place so mutations invalidate exactly what they change. */
export const qk = {
  me: ['me'] as const,
  models: ['models'] as const,
  account: ['account'] as const,
  limits: ['limits'] as const,
  conversations: ['conversations'] as const,
  conversation: (id: string) => ['conversation', id] as const,
  search: (q: string) => ['search', q] as const,
};
