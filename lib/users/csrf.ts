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
  if (input.origin !== undefined && input.origin !== null && input.origin !== '') {
    let originHost: string | undefined;
    try {
      originHost = new URL(input.origin).host.toLowerCase();
    } catch {
      originHost = undefined;
    }
    if (!originHost || !input.host || originHost !== input.host.trim().toLowerCase()) {
      throw new ApiError('FORBIDDEN', 'Cross-origin request refused: the Origin does not match this site');
    }
  }
  if (!input.sessionCsrf) throw new ApiError('FORBIDDEN', 'CSRF check failed: no session');
  if (!input.headerToken) throw new ApiError('FORBIDDEN', `CSRF check failed: the ${CSRF_HEADER} header is missing`);
  if (!safeEqual(input.headerToken, input.sessionCsrf)) throw new ApiError('FORBIDDEN', `CSRF check failed: the ${CSRF_HEADER} header does not match the session`);
}
