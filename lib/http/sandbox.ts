// The sandbox for what answers draw: Mermaid diagrams and HTML previews (issue 32). The chat page frames
// /sandbox/render with sandbox="allow-scripts" and never allow-same-origin, so the framed document has an opaque
// origin: it cannot read the page that framed it, its cookies or storage, and a request it makes carries no
// session (it is a cross-origin request the app never allows). Its own policy (below) is the second wall: it may
// connect nowhere, load nothing but its own two scripts and inline data, submit no form, and be framed only by this
// site; the CSP `sandbox` directive keeps it sandboxed even when opened on its own. The page gets the source by
// postMessage (lib/http/sandbox/render.js), so no answer ever travels in a URL. The Mermaid library (MIT) is served
// from node_modules here, loaded only by this page, and only when a diagram is drawn: the chat bundle never holds it.
import fs from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { log } from '../log.ts';

export const SANDBOX_PREFIX = '/sandbox';
export const SANDBOX_PAGE = '/sandbox/render';

const require = createRequire(import.meta.url);
const here = path.dirname(fileURLToPath(import.meta.url));

/** The sandbox page's Content-Security-Policy. */
export const SANDBOX_POLICY = [
  "default-src 'none'",
  // Its own script and Mermaid ('self': this server's origin, the URL's, though the document's own is opaque), and the
  // inline scripts of an HTML preview, which run only here.
  "script-src 'self' 'unsafe-inline'",
  "style-src 'unsafe-inline'",
  'img-src data: blob:',
  'font-src data:',
  "connect-src 'none'",
  "form-action 'none'",
  "base-uri 'none'",
  "frame-src 'none'",
  "worker-src 'none'",
  "object-src 'none'",
  "frame-ancestors 'self'",
  'sandbox allow-scripts',
].join('; ');

const PERMISSIONS = 'accelerometer=(), camera=(), display-capture=(), geolocation=(), gyroscope=(), microphone=(), payment=(), usb=(), serial=(), hid=()';

let mermaidVersion = '';
try {
  mermaidVersion = (require('mermaid/package.json') as { version: string }).version;
} catch {
  // Not installed: diagrams say the renderer could not be loaded; HTML previews still work.
}

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="color-scheme" content="light dark"><title>Preview</title>
<style>html,body{margin:0;padding:0;background:transparent}body{font:14px/1.5 system-ui,sans-serif}#out{display:flex;justify-content:center;padding:8px}#out svg{max-width:100%;height:auto}.error{color:#b42318;font:13px/1.5 ui-monospace,monospace;white-space:pre-wrap}</style>
</head><body><div id="out" role="status"></div><script src="/sandbox/render.js" data-mermaid="${mermaidVersion}"></script></body></html>
`;

interface Asset {
  body: Buffer;
  type: string;
}
const assets = new Map<string, Asset | null>();

function asset(name: string): Asset | null {
  if (assets.has(name)) return assets.get(name) ?? null;
  let a: Asset | null = null;
  try {
    if (name === 'render') a = { body: Buffer.from(PAGE), type: 'text/html; charset=utf-8' };
    else if (name === 'render.js') a = { body: fs.readFileSync(path.join(here, 'sandbox', 'render.js')), type: 'text/javascript; charset=utf-8' };
    else if (name === 'mermaid.js' && mermaidVersion)
      a = { body: fs.readFileSync(require.resolve('mermaid/dist/mermaid.min.js')), type: 'text/javascript; charset=utf-8' };
  } catch (e) {
    log.error({ err: e, name }, 'a sandbox file could not be read');
  }
  assets.set(name, a);
  return a;
}

/** Answers a request under /sandbox: the page, its script, Mermaid; 404 for anything else, 405 but for GET and HEAD. */
export function serveSandbox(req: IncomingMessage, res: ServerResponse, pathname: string): void {
  const name = pathname.slice(SANDBOX_PREFIX.length + 1);
  const a = asset(name);
  if (!a) {
    res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff' }).end('Not found');
    return;
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' }).end('Method not allowed');
    return;
  }
  const headers: Record<string, string | number> = {
    'content-type': a.type,
    'content-length': a.body.length,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    // The page changes with the release; Mermaid's URL carries its version.
    'cache-control': name === 'mermaid.js' ? 'public, max-age=31536000, immutable' : 'no-cache',
  };
  if (name === 'render') {
    headers['content-security-policy'] = SANDBOX_POLICY;
    headers['permissions-policy'] = PERMISSIONS;
    headers['x-frame-options'] = 'SAMEORIGIN';
  }
  res.writeHead(200, headers);
  res.end(req.method === 'HEAD' ? undefined : a.body);
}
