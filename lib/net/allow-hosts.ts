// The operator's list of hosts that safeFetch may reach even though they resolve to private addresses (intranet
// deployments, tests; LAGOON_FETCH_ALLOW_HOSTS, parsed by lib/config.ts into Config.fetchAllowHosts). Matching is exact on the URL's host: no wildcards, no matching on resolved addresses, so a
// redirect to another name for the same machine is still checked.

import { isIP } from 'node:net';

const HOSTNAME = /^(?=.{1,253}$)[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)*$/;

/** A URL's host as compared against the allowlist: lower case, IPv6 without brackets, no trailing dot. */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '');
}

/**
 * An allowlist entry in the form hostOf gives, by way of the WHATWG URL parser: it settles case, IPv6 compression,
 * odd IPv4 spellings ("127.1") and IDN names, so entries and URLs compare as plain strings. Undefined if invalid.
 */
function canonicalEntry(entry: string): string | undefined {
  const bare = entry.replace(/^\[(.*)\]$/, '$1');
  try {
    const url = new URL(`http://${isIP(bare) === 6 ? `[${bare}]` : bare}/`);
    if (url.port || url.username || url.password || url.pathname !== '/' || url.search || url.hash) return undefined;
    const host = hostOf(url);
    return isIP(host) || HOSTNAME.test(host) ? host : undefined;
  } catch {
    return undefined;
  }
}

/** Validates and canonicalises allowlist entries; a bad entry is a configuration error, so it throws. */
export function parseAllowHosts(entries: readonly string[], source = 'allowHosts'): string[] {
  return entries
    .map((entry) => entry.trim())
    .filter(Boolean)
    .map((entry) => {
      if (entry.includes('*')) throw new Error(`${source}: wildcards are not allowed ("${entry}"); list each host exactly`);
      const host = canonicalEntry(entry);
      if (!host) throw new Error(`${source}: "${entry}" is not a hostname or IP address (no schemes, ports or paths)`);
      return host;
    });
}
