// The security headers of the browser app's pages: every request the server hands to Next (pages, their RSC
// payloads, static assets) passes through `securePageRequest` first. The Content-Security-Policy carries a fresh
// nonce per request; it is also set on the request, where Next reads it (the `'nonce-…'` of script-src) and stamps
// it on its own scripts and styles, and app/layout.tsx reads it (`x-nonce`) for the theme script. The pages are
// therefore rendered per request (the root layout reads the headers).
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { Config } from '../config.ts';

/** The request header the root layout reads the nonce from (set here, so a client-sent one never survives). */
export const NONCE_HEADER = 'x-nonce';

/** 128 random bits, base64: unguessable and new for every page request. */
export const newNonce = (): string => randomBytes(16).toString('base64');

export interface PolicyOptions {
  /** `next dev` (LAGOON_DEV): React's development build needs eval for its error overlays and stack traces. */
  dev?: boolean;
  /** Reached over https: plain-http subresources are upgraded. */
  https?: boolean;
  /** Other origins images may come from (character photos: the remote API's, LAGOON_IMAGE_ORIGINS). */
  imageOrigins?: readonly string[];
}

/**
 * The pages' Content-Security-Policy. Scripts run only with the request's nonce (Next's scripts, the theme script),
 * and what they load ('strict-dynamic': the bundler's chunk loading); no eval outside `next dev`. The browser talks
 * only to this server (wallets are browser extensions, injected, and reach their chains themselves).
 */
export function contentSecurityPolicy(nonce: string, opts: PolicyOptions = {}): string {
  return [
    "default-src 'self'",
    // 'self' is ignored where 'strict-dynamic' is understood; it is the fallback of CSP level 2 browsers.
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${opts.dev ? " 'unsafe-eval'" : ''}`,
    // Stylesheets are files (Tailwind, KaTeX); Next stamps the nonce on the <style> elements it writes.
    `style-src 'self' 'nonce-${nonce}'${opts.dev ? " 'unsafe-inline'" : ''}`,
    // Style attributes (never <style> elements) are allowed: a nonce cannot cover an attribute, and the math
    // renderer (rehype-katex) parses KaTeX's HTML, full of computed style="height:…" attributes, through a
    // <template> before React applies them. CSS in an attribute runs no script and, with img-src/font-src/
    // connect-src limited to this server, cannot send anything anywhere.
    "style-src-attr 'unsafe-inline'",
    // data: attachment thumbnails and avatars; blob: previews of files not yet sent. No other host: an image in a
    // model's markdown answer cannot carry the conversation off to one.
    ["img-src 'self' data: blob:", ...(opts.imageOrigins ?? [])].join(' '),
    "font-src 'self' data:",
    "connect-src 'self'",
    "media-src 'self' data: blob:",
    // The Shiki highlighting worker (a same-origin chunk; bundlers may start it from a blob: URL).
    "worker-src 'self' blob:",
    "manifest-src 'self'",
    "object-src 'none'",
    // Only this site's pages, and every one of them but the sandbox (lib/http/sandbox.ts) refuses to be framed: the
    // sandboxed frames that draw diagrams and HTML previews.
    "frame-src 'self'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    ...(opts.https ? ['upgrade-insecure-requests'] : []),
  ].join('; ');
}

/** Features the app never uses, off for the page and anything it could embed. */
const PERMISSIONS_POLICY = [
  'accelerometer=()',
  'autoplay=()',
  'camera=()',
  'display-capture=()',
  'geolocation=()',
  'gyroscope=()',
  'hid=()',
  'magnetometer=()',
  // Dictation in the chat composer records from the microphone (this site only; nothing it embeds).
  'microphone=(self)',
  'midi=()',
  'payment=()',
  'serial=()',
  'usb=()',
  'xr-spatial-tracking=()',
  'browsing-topics=()',
].join(', ');

/** The headers every page response carries besides the CSP; HSTS only when the browser came over https. */
export function pageSecurityHeaders(https: boolean): Record<string, string> {
  return {
    'X-Content-Type-Options': 'nosniff',
    // Same-origin requests keep their Referer (and, unlike no-referrer, a real Origin on POSTs, which the app's
    // CSRF checks need); links out (citations) send nothing, not even which server the user was on.
    'Referrer-Policy': 'same-origin',
    'Permissions-Policy': PERMISSIONS_POLICY,
    // frame-ancestors 'none' for browsers that predate it.
    'X-Frame-Options': 'DENY',
    // No includeSubDomains or preload: the operator's other hosts are not ours to pin.
    ...(https ? { 'Strict-Transport-Security': 'max-age=31536000' } : {}),
  };
}

export interface PageSecurityOptions {
  dev: boolean;
  /** LAGOON_TRUST_PROXY: X-Forwarded-Proto comes from our own proxy. */
  trustProxy: boolean;
  /** LAGOON_PUBLIC_URL's origin (the configured public address). */
  publicOrigin: string;
  imageOrigins: readonly string[];
}

/** The options from the configuration (read per request: tests set the public URL once the port is known). */
export function pageSecurityOptions(config: Config, trustProxy: boolean): PageSecurityOptions {
  const remote = config.app.remote && new URL(config.app.remote.baseUrl).origin;
  return {
    dev: config.dev,
    trustProxy,
    publicOrigin: config.wallet.publicOrigin,
    imageOrigins: remote ? [remote, ...config.app.imageOrigins] : config.app.imageOrigins,
  };
}

/** True when the browser reached us over https: TLS here, a proxy we trust saying so, or an https public URL. */
export function requestIsHttps(req: IncomingMessage, opts: Pick<PageSecurityOptions, 'trustProxy' | 'publicOrigin'>): boolean {
  if ((req.socket as TLSSocket).encrypted) return true;
  if (opts.publicOrigin.startsWith('https:')) return true;
  if (!opts.trustProxy) return false;
  const xfp = req.headers['x-forwarded-proto'];
  return (Array.isArray(xfp) ? xfp[0] : xfp)?.split(',')[0]?.trim().toLowerCase() === 'https';
}

// Built assets are not documents: they get the plain headers only (a worker script served with the pages' policy
// would be held to a nonce it cannot have).
const isStaticAsset = (path: string) => path.startsWith('/_next/static/');

/**
 * Sets the security headers on a page response before Next writes it, and the policy (with a fresh nonce) on the
 * request, where Next's rendering reads it. Returns the nonce (undefined for static assets).
 */
export function securePageRequest(req: IncomingMessage, res: ServerResponse, path: string, opts: PageSecurityOptions): string | undefined {
  const https = requestIsHttps(req, opts);
  for (const [k, v] of Object.entries(pageSecurityHeaders(https))) res.setHeader(k, v);
  // Whatever the client sent in these names must not reach the rendering.
  delete req.headers['content-security-policy'];
  delete req.headers['content-security-policy-report-only'];
  delete req.headers[NONCE_HEADER];
  if (isStaticAsset(path)) return undefined;
  const nonce = newNonce();
  const policy = contentSecurityPolicy(nonce, { dev: opts.dev, https, imageOrigins: opts.imageOrigins });
  req.headers['content-security-policy'] = policy;
  req.headers[NONCE_HEADER] = nonce;
  res.setHeader('Content-Security-Policy', policy);
  return nonce;
}
