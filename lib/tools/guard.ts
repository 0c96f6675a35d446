// Tool traffic is untrusted both ways. Out: a model (perhaps steered by a page or a tool result it read) must not
// smuggle a credential into a tool's arguments, and an HTTP MCP server must not be pointed at the host's own network
// (SSRF). In: what a tool returns is capped before the model reads it (tool.ts capText).
import dns from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { Agent, fetch as undiciFetch } from 'undici';
import { ApiError } from '../api/errors.ts';
import { hostOf } from '../net/allow-hosts.ts';
import { classifyIp } from '../net/ip-ranges.ts';

// Shapes of credentials: this service's keys, common upstream keys and tokens, private keys.
const SECRET_SHAPES = [
  /lgn_(inf|adm)_[A-Za-z0-9]{20,}/,
  /\bsk-[A-Za-z0-9_-]{20,}/,
  /\bgh[pousr]_[A-Za-z0-9]{30,}/,
  /\bxox[abprs]-[A-Za-z0-9-]{10,}/,
  /\bAKIA[0-9A-Z]{16}\b/,
  /-----BEGIN [A-Z ]*PRIVATE KEY-----/,
];

/** Why these arguments must not be sent (a credential in them), or null. `known`: secret values the server holds for this tool. */
export function secretInArguments(args: string, known: readonly string[] = []): string | null {
  for (const shape of SECRET_SHAPES) if (shape.test(args)) return 'the arguments hold what looks like a credential';
  for (const s of known) if (s.length >= 8 && args.includes(s)) return 'the arguments hold a credential this server keeps';
  return null;
}

const METADATA_HOSTNAMES = new Set(['metadata.google.internal', 'metadata.goog', 'metadata', 'instance-data', 'instance-data.ec2.internal']);

const refuse = (why: string) => new ApiError('INVALID_REQUEST', why, { param: 'url' });

/** A URL an HTTP MCP server may have: http(s), no credentials in it, and not a private address unless the operator allowed its host. */
export function checkServerUrl(raw: string, allowHosts: readonly string[]): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw refuse('url: not a valid URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw refuse('url: must be http or https');
  if (url.username || url.password) throw refuse('url: put credentials in headers, not in the URL');
  const host = hostOf(url);
  if (allowHosts.includes(host)) return url;
  if (METADATA_HOSTNAMES.has(host)) throw refuse('url: a cloud metadata address is never reachable');
  if (isIP(host) && classifyIp(host) !== 'public') {
    throw refuse(`url: ${host} is a private address; list it in LAGOON_FETCH_ALLOW_HOSTS to reach it`);
  }
  return url;
}

/**
 * The fetch an HTTP MCP transport uses: every connection's address is resolved and vetted here, and the connection
 * made to the vetted address (no DNS rebinding between check and connect); redirects are not followed.
 */
export function guardedFetch(allowHosts: readonly string[]): { fetch: typeof globalThis.fetch; close: () => Promise<void> } {
  const lookup: LookupFunction = (hostname, options, callback) => {
    const host = hostname.toLowerCase().replace(/\.$/, '');
    dns.lookup(host, { all: true, family: options.family ?? 0 }, (err, addresses) => {
      if (err) return callback(err, '', 0);
      const allowed = allowHosts.includes(host);
      if (!allowed && (METADATA_HOSTNAMES.has(host) || addresses.some((a) => classifyIp(a.address) !== 'public'))) {
        const e = Object.assign(new Error(`${host} resolves to a private address`), { code: 'EACCES' });
        return callback(e, '', 0);
      }
      if (options.all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, addresses);
      callback(null, addresses[0].address, addresses[0].family);
    });
  };
  const agent = new Agent({ connect: { lookup } });
  const guarded = (async (input: string | URL | Request, init?: RequestInit) => {
    const href = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    checkServerUrl(href, allowHosts);
    // undici's own fetch: its Agent is the one that pins the vetted address.
    return undiciFetch(href, { ...(init as object), redirect: 'error', dispatcher: agent } as never) as unknown as Response;
  }) as typeof globalThis.fetch;
  return { fetch: guarded, close: () => agent.close() };
}
