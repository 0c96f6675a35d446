// Test helpers for the app's route handlers: Requests as a browser on this site sends them (cookie, CSRF header,
// Origin; the client address as the server passes it), and a scan of every response for key material.
import assert from 'node:assert/strict';
import type { Store } from '../../lib/db/store.ts';
import type { RouteHandler } from '../../lib/http/app-route.ts';

export const HOST = 'chat.test';
export const ORIGIN = `http://${HOST}`;

/** What a browser holds: its session cookie and CSRF token (once signed in), and the address it comes from. */
export interface Browser {
  ip: string;
  cookie?: string;
  csrf?: string;
}

export interface CallOptions {
  method?: string;
  body?: unknown;
  browser?: Browser;
  headers?: Record<string, string>;
  /** Leave out the x-csrf-token header even when the browser has a token. */
  noCsrf?: boolean;
}

export function appRequest(path: string, o: CallOptions = {}): Request {
  const method = o.method ?? 'GET';
  const headers: Record<string, string> = { host: HOST };
  if (method !== 'GET') headers.origin = ORIGIN;
  if (o.body !== undefined) headers['content-type'] = 'application/json';
  if (o.browser?.cookie) headers.cookie = o.browser.cookie;
  if (o.browser?.csrf && !o.noCsrf && method !== 'GET') headers['x-csrf-token'] = o.browser.csrf;
  return new Request(`${ORIGIN}/api/app${path}`, {
    method,
    headers: { ...headers, ...o.headers },
    body: o.body === undefined ? undefined : typeof o.body === 'string' ? o.body : JSON.stringify(o.body),
  });
}

export interface Result {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

/** Secret-shaped strings that must never reach a browser: API keys (ours, and sk- style upstream keys). */
const SECRET_SHAPES = [/lgn_(inf|adm)_[A-Za-z0-9]{20,}/, /\bsk-[A-Za-z0-9_-]{20,}/];

/** Every stored secret digest: API key hashes, password hashes, session id hashes. */
export async function storedSecrets(store: Store): Promise<string[]> {
  const keys = await store.all<{ v: string }>('SELECT key_hash AS v FROM api_keys');
  const users = await store.all<{ v: string }>('SELECT password_hash AS v FROM users');
  const sessions = await store.all<{ v: string }>('SELECT id_hash AS v FROM sessions');
  return [...keys, ...users, ...sessions].map((r) => r.v).filter((v) => v && v.length >= 16);
}

export function assertNoKeyMaterial(text: string, secrets: string[], where: string): void {
  for (const shape of SECRET_SHAPES) assert.doesNotMatch(text, shape, `key-shaped secret in ${where}`);
  for (const s of secrets) assert.ok(!text.includes(s), `a stored secret digest appears in ${where}`);
}

/**
 * Calls a handler and reads its response. Every response (headers and body) is checked for key material: the
 * stored key/password/session digests, any extra secrets given, and key-shaped strings.
 */
export function caller(store: Store, extraSecrets: () => string[] = () => []) {
  return async function call(handler: RouteHandler, path: string, o: CallOptions = {}, params: Record<string, string> = {}): Promise<Result> {
    const req = appRequest(path, o);
    const res = await handler(req, params, { ip: o.browser?.ip ?? '192.0.2.1' });
    const text = await res.text();
    const where = `${o.method ?? 'GET'} ${path}`;
    assertNoKeyMaterial(`${JSON.stringify([...res.headers])}\n${text}`, [...(await storedSecrets(store)), ...extraSecrets()], where);
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: res.status, headers: res.headers, text, json };
  };
}

/** The session cookie pair (`name=value`) from a Set-Cookie header. */
export function cookieFrom(res: Result): string {
  const set = res.headers.get('set-cookie') ?? '';
  const pair = set.split(';')[0];
  assert.match(pair, /^lagoon_session=[A-Za-z0-9_-]{43}$/, `expected a session cookie, got "${set}"`);
  return pair;
}
