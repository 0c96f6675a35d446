// CSRF protection for the browser app's state-changing routes: the session's token must come back in the
// x-csrf-token header (a cross-site page cannot read it), and a present Origin must be this host.
import { createHash, timingSafeEqual } from 'node:crypto';
import { ApiError } from '../api/errors.ts';

export const CSRF_HEADER = 'x-csrf-token';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE']);

const digest = (s: string) => createHash('sha256').update(s).digest();

/** Constant-time string equality (the lengths are not revealed either: both sides are hashed first). */
export function safeEqual(a: string, b: string): boolean {
  return timingSafeEqual(digest(a), digest(b));
}

export interface CsrfInput {
  method: string;
  /** The Origin request header, when sent. */
  origin: string | null | undefined;
  /** The Host request header. */
  host: string | null | undefined;
  /** The x-csrf-token request header. */
  headerToken: string | null | undefined;
  /** The csrf token of the request's session. */
  sessionCsrf: string | null | undefined;
}

/**
 * Passes safe methods (GET, HEAD, OPTIONS, TRACE); every other method is treated as state-changing and needs the
 * session's CSRF token in x-csrf-token and, when an Origin header is present, an origin whose host is the request's
 * Host. Throws ApiError FORBIDDEN otherwise.
 */
export function checkCsrf(input: CsrfInput): void {
  if (SAFE_METHODS.has(input.method.toUpperCase())) return;
  checkOrigin(input.origin, input.host);
  if (!input.sessionCsrf) throw new ApiError('FORBIDDEN', 'CSRF check failed: no session');
  if (!input.headerToken) throw new ApiError('FORBIDDEN', `CSRF check failed: the ${CSRF_HEADER} header is missing`);
  if (!safeEqual(input.headerToken, input.sessionCsrf))
    throw new ApiError('FORBIDDEN', `CSRF check failed: the ${CSRF_HEADER} header does not match the session`);
}

/**
 * Refuses a present Origin whose host is not the request's Host (FORBIDDEN). The routes that run before a session
 * exists (sign-up, sign-in) have no token to check, so this is their CSRF defence, with `sec-fetch-site` (sent by
 * every current browser) refusing cross-site requests that carry no Origin.
 */
export function checkOrigin(origin: string | null | undefined, host: string | null | undefined, secFetchSite?: string | null): void {
  if (secFetchSite && secFetchSite !== 'same-origin' && secFetchSite !== 'none') {
    throw new ApiError('FORBIDDEN', 'Cross-origin request refused: it did not come from this site');
  }
  if (origin === undefined || origin === null || origin === '') return;
  let originHost: string | undefined;
  try {
    originHost = new URL(origin).host.toLowerCase();
  } catch {
    originHost = undefined;
  }
  if (!originHost || !host || originHost !== host.trim().toLowerCase()) {
    throw new ApiError('FORBIDDEN', 'Cross-origin request refused: the Origin does not match this site');
  }
}
