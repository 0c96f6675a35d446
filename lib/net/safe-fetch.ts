// The one way the service fetches a URL a user gave it. A user-supplied URL must not reach the host's own network
// (SSRF): every hop is resolved here, every resolved address vetted, and the connection pinned to the vetted
// address, so DNS answering differently between the check and the connect (rebinding) changes nothing.

import { lookup as dnsLookup } from 'node:dns/promises';
import http from 'node:http';
import type { IncomingMessage } from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import type { LookupFunction } from 'node:net';
import { pipeline } from 'node:stream';
import type { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { ApiError } from '../api/errors.ts';
import { hostOf, parseAllowHosts } from './allow-hosts.ts';
import { classifyIp } from './ip-ranges.ts';

export interface ResolvedAddress {
  address: string;
  family: number;
}

export interface SafeFetchOptions {
  /** Largest body accepted, after decompression (default 5 MiB). */
  maxBytes?: number;
  /** Time for the whole fetch, redirects and body included (default 10 s). */
  timeoutMs?: number;
  /** Redirects followed before giving up (default 3). */
  maxRedirects?: number;
  /** Hosts exempt from the private-address check (the operator's Config.fetchAllowHosts); default none. */
  allowHosts?: string[];
  /** The Accept header (default any). */
  accept?: string;
  signal?: AbortSignal;
  /** Resolver to use instead of the system one (tests). */
  lookup?: (hostname: string) => Promise<ResolvedAddress[]>;
  /** POST sends `body` with `headers` and follows no redirect (a 3xx is the answer); default GET. */
  method?: 'GET' | 'POST';
  body?: string | Buffer;
  headers?: Record<string, string>;
}

export interface SafeFetchResult {
  /** The final URL, after redirects. */
  url: string;
  status: number;
  contentType: string | undefined;
  body: Buffer;
}

export const SAFE_FETCH_DEFAULTS = { maxBytes: 5 * 1024 * 1024, timeoutMs: 10_000, maxRedirects: 3 } as const;

// Names that reach a cloud provider's instance metadata service from inside the instance.
const METADATA_HOSTNAMES = new Set(['metadata.google.internal', 'metadata.goog', 'metadata', 'instance-data', 'instance-data.ec2.internal']);

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const USER_AGENT = 'Mozilla/5.0 (compatible; Lagoon/0.1)';

const refuse = (why: string): ApiError => new ApiError('INVALID_REQUEST', why);

export async function safeFetch(url: string, opts: SafeFetchOptions = {}): Promise<SafeFetchResult> {
  const maxBytes = opts.maxBytes ?? SAFE_FETCH_DEFAULTS.maxBytes;
  const timeoutMs = opts.timeoutMs ?? SAFE_FETCH_DEFAULTS.timeoutMs;
  const maxRedirects = opts.maxRedirects ?? SAFE_FETCH_DEFAULTS.maxRedirects;
  const allowHosts = new Set(parseAllowHosts(opts.allowHosts ?? []));
  const resolve = opts.lookup ?? systemLookup;
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout;

  try {
    let target = parseTarget(url);
    for (let redirects = 0; ; redirects++) {
      const pinned = await vet(target, allowHosts, resolve, signal);
      const res = await get(target, pinned, opts.accept ?? '*/*', signal, opts);
      const location = res.headers.location;
      if (opts.method !== 'POST' && res.statusCode !== undefined && REDIRECT_STATUSES.has(res.statusCode) && location) {
        res.destroy();
        if (redirects >= maxRedirects) throw refuse(`too many redirects (more than ${maxRedirects})`);
        target = parseTarget(location, target);
        continue;
      }
      const body = await readBody(res, maxBytes, signal);
      return { url: target.href, status: res.statusCode ?? 0, contentType: res.headers['content-type'], body };
    }
  } catch (e) {
    if (e instanceof ApiError) throw e;
    if (timeout.aborted) throw refuse(`timed out fetching URL (limit ${timeoutMs / 1000} s)`);
    if (opts.signal?.aborted) throw refuse('fetching URL was cancelled');
    throw refuse(`could not fetch URL: ${describeNetworkError(e)}`);
  }
}

/**
 * Checks, without fetching, that safeFetch would reach the URL: http(s), no credentials, and a host that resolves
 * to public addresses only (or is allowed). Throws the same 400 safeFetch would; for checking a URL when it is saved.
 */
export async function vetUrl(url: string, opts: Pick<SafeFetchOptions, 'allowHosts' | 'lookup' | 'timeoutMs'> = {}): Promise<void> {
  const signal = AbortSignal.timeout(opts.timeoutMs ?? SAFE_FETCH_DEFAULTS.timeoutMs);
  try {
    await vet(parseTarget(url), new Set(parseAllowHosts(opts.allowHosts ?? [])), opts.lookup ?? systemLookup, signal);
  } catch (e) {
    if (e instanceof ApiError) throw e;
    throw refuse("timed out resolving the URL's host");
  }
}

function parseTarget(text: string, base?: URL): URL {
  let url: URL;
  try {
    url = new URL(text, base);
  } catch {
    throw refuse(base ? 'redirected to an invalid URL' : 'invalid URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw refuse(`only http and https URLs can be fetched, not ${url.protocol}`);
  }
  if (url.username || url.password) throw refuse('URLs with credentials are not allowed');
  url.hash = '';
  return url;
}

/** Resolves the URL's host and checks every address; returns the one to connect to. */
async function vet(
  url: URL,
  allowHosts: ReadonlySet<string>,
  resolve: (hostname: string) => Promise<ResolvedAddress[]>,
  signal: AbortSignal,
): Promise<ResolvedAddress> {
  const host = hostOf(url);
  if (METADATA_HOSTNAMES.has(host)) throw refuse('URL points to a cloud metadata service');
  const family = isIP(host);
  let addresses: ResolvedAddress[];
  if (family) {
    addresses = [{ address: host, family }];
  } else {
    try {
      addresses = await abortable(resolve(host), signal);
    } catch (e) {
      if (signal.aborted) throw e;
      throw refuse(`could not resolve host "${host}"`);
    }
    if (addresses.length === 0) throw refuse(`could not resolve host "${host}"`);
  }
  const allowed = allowHosts.has(host);
  // Every address, not just the one used: the check must not depend on which one a resolver lists first.
  for (const { address } of addresses) {
    const cls = classifyIp(address);
    // Metadata services hand out cloud credentials; no allowlist entry opens them.
    if (cls === 'metadata') throw refuse('URL points to a cloud metadata service');
    if (!allowed && cls !== 'public') throw refuse(`URL resolves to a private or reserved address (${cls ?? 'invalid'})`);
  }
  return addresses[0];
}

async function systemLookup(hostname: string): Promise<ResolvedAddress[]> {
  return dnsLookup(hostname, { all: true });
}

function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  signal.throwIfAborted();
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** A lookup that only ever answers with the vetted address, whatever DNS would say by now. */
function pinnedLookup({ address, family }: ResolvedAddress): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  };
}

function get(
  url: URL,
  pinned: ResolvedAddress,
  accept: string,
  signal: AbortSignal,
  send: Pick<SafeFetchOptions, 'method' | 'body' | 'headers'> = {},
): Promise<IncomingMessage> {
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    // The URL keeps its hostname, so Host and TLS SNI/certificate checks use the name; only the lookup is pinned.
    const req = client.request(url, {
      method: send.method ?? 'GET',
      headers: { ...send.headers, accept, 'accept-encoding': 'gzip, deflate, br', 'user-agent': USER_AGENT },
      agent: false,
      lookup: pinnedLookup(pinned),
      signal,
    });
    req.on('response', resolve);
    req.on('error', reject);
    req.end(send.method === 'POST' ? (send.body ?? '') : undefined);
  });
}

async function readBody(res: IncomingMessage, maxBytes: number, signal: AbortSignal): Promise<Buffer> {
  const tooLarge = () => refuse(`response larger than ${formatSize(maxBytes)}`);
  const encoding = (res.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  const declared = Number(res.headers['content-length']);
  if (encoding === 'identity' && declared > maxBytes) {
    res.destroy();
    throw tooLarge();
  }
  const decoder = decoderFor(encoding);
  if (decoder === null) {
    res.destroy();
    throw refuse(`unsupported response content-encoding "${encoding}"`);
  }
  const stream: Readable = decoder ? pipeline(res, decoder, () => {}) : res;
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of stream) {
      size += (chunk as Buffer).length;
      // Counted as it streams: a body with no (or a lying) content-length stops here, not in memory.
      if (size > maxBytes) throw tooLarge();
      chunks.push(chunk as Buffer);
    }
  } catch (e) {
    if (e instanceof ApiError || signal.aborted) throw e;
    const code = String((e as { code?: unknown } | null)?.code ?? '');
    const undecodable = code.startsWith('Z_') || code.includes('BROTLI');
    throw refuse(undecodable ? 'could not decode the compressed response' : `could not fetch URL: ${describeNetworkError(e)}`);
  } finally {
    res.destroy();
    stream.destroy();
  }
  signal.throwIfAborted();
  return Buffer.concat(chunks);
}

/** The decompressor for a content-encoding: undefined for none, null for one we cannot read. */
function decoderFor(encoding: string): zlib.Gunzip | zlib.Inflate | zlib.BrotliDecompress | undefined | null {
  switch (encoding) {
    case 'identity':
    case '':
      return undefined;
    case 'gzip':
    case 'x-gzip':
      return zlib.createGunzip();
    case 'deflate':
      return zlib.createInflate();
    case 'br':
      return zlib.createBrotliDecompress();
    default:
      return null;
  }
}

function describeNetworkError(e: unknown): string {
  const code = (e as { code?: unknown } | null)?.code;
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ECONNRESET' || code === 'EPIPE') return 'connection reset';
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return 'host unreachable';
  if (typeof code === 'string' && /CERT|SSL|TLS/.test(code)) return `TLS certificate problem (${code})`;
  if (typeof code === 'string' && code.startsWith('HPE_')) return 'invalid HTTP response';
  return typeof code === 'string' ? code : 'network error';
}

function formatSize(bytes: number): string {
  const [value, unit] = bytes >= 1024 * 1024 ? [bytes / (1024 * 1024), 'MB'] : bytes >= 1024 ? [bytes / 1024, 'KB'] : [bytes, 'bytes'];
  return `${Math.round(value * 10) / 10} ${unit}`;
}
