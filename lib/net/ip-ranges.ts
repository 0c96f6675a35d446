// Which addresses the service may fetch from on a user's behalf: only globally routable unicast. Everything else
// (loopback, private networks, link-local, cloud metadata, multicast, reserved and documentation space, and IPv6
// forms that embed one of those IPv4 addresses) could reach something the user must not.

import { isIPv4, isIPv6 } from 'node:net';

export type AddressClass =
  | 'public'
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'unique-local'
  | 'cgnat'
  | 'multicast'
  | 'broadcast'
  | 'metadata'
  | 'documentation'
  | 'reserved';

type V4Range = readonly [network: string, bits: number, cls: AddressClass];

// Longest prefixes first, so the first match is the most specific one.
const V4_RANGES: readonly V4Range[] = [
  ['169.254.169.254', 32, 'metadata'], // AWS, GCP, Azure, OpenStack…
  ['169.254.170.2', 32, 'metadata'], // AWS ECS task metadata
  ['100.100.100.200', 32, 'metadata'], // Alibaba Cloud
  ['255.255.255.255', 32, 'broadcast'],
  ['192.0.0.0', 24, 'reserved'], // IETF protocol assignments (incl. Oracle's 192.0.0.192 metadata)
  ['192.0.2.0', 24, 'documentation'],
  ['192.88.99.0', 24, 'reserved'], // former 6to4 relay anycast
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['169.254.0.0', 16, 'link-local'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'reserved'], // benchmarking
  ['172.16.0.0', 12, 'private'],
  ['100.64.0.0', 10, 'cgnat'],
  ['0.0.0.0', 8, 'unspecified'], // "this network"
  ['10.0.0.0', 8, 'private'],
  ['127.0.0.0', 8, 'loopback'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'],
];

type V6Range = readonly [network: string, bits: number, cls: AddressClass | 'embedded-v4'];

// 'embedded-v4': the address carries an IPv4 address that a gateway or the host itself will reach; judge that.
const V6_RANGES: readonly V6Range[] = [
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['fd00:ec2::254', 128, 'metadata'], // AWS IMDS over IPv6
  ['::ffff:0:0', 96, 'embedded-v4'], // IPv4-mapped
  ['64:ff9b::', 96, 'embedded-v4'], // NAT64 well-known prefix
  ['::', 96, 'reserved'], // deprecated IPv4-compatible
  ['100::', 64, 'reserved'], // discard-only
  ['64:ff9b:1::', 48, 'reserved'], // local-use NAT64
  ['2001:db8::', 32, 'documentation'],
  ['2001::', 23, 'reserved'], // IETF protocol assignments, incl. Teredo
  ['3fff::', 20, 'documentation'],
  ['2002::', 16, 'embedded-v4'], // 6to4: the IPv4 address sits in bytes 2–5
  ['5f00::', 16, 'reserved'], // SRv6 SIDs
  ['fe80::', 10, 'link-local'],
  ['fec0::', 10, 'private'], // deprecated site-local
  ['ff00::', 8, 'multicast'],
  ['fc00::', 7, 'unique-local'],
];

/** Dotted-quad IPv4 → 4 bytes; undefined if not one. */
export function parseIPv4(address: string): number[] | undefined {
  if (!isIPv4(address)) return undefined;
  return address.split('.').map(Number);
}

/** IPv6 (any textual form, optional zone) → 16 bytes; undefined if not one. */
export function parseIPv6(address: string): number[] | undefined {
  if (!isIPv6(address)) return undefined;
  let text = address.split('%')[0];
  let v4: number[] | undefined;
  const lastColon = text.lastIndexOf(':');
  if (text.includes('.', lastColon)) {
    v4 = parseIPv4(text.slice(lastColon + 1));
    if (!v4) return undefined;
    text = `${text.slice(0, lastColon + 1)}0:0`;
  }
  const [head, tail] = text.split('::');
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail ? tail.split(':') : [];
  const zeros = tail === undefined ? [] : Array<string>(8 - headGroups.length - tailGroups.length).fill('0');
  const groups = [...headGroups, ...zeros, ...tailGroups];
  if (groups.length !== 8) return undefined;
  const bytes = groups.flatMap((g) => {
    const value = parseInt(g, 16);
    return [value >> 8, value & 0xff];
  });
  if (v4) bytes.splice(12, 4, ...v4);
  return bytes;
}

function inPrefix(bytes: readonly number[], network: readonly number[], bits: number): boolean {
  for (let i = 0; bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if ((bytes[i] & mask) !== (network[i] & mask)) return false;
  }
  return true;
}

const v4Table = V4_RANGES.map(([net, bits, cls]) => [parseIPv4(net)!, bits, cls] as const);
const v6Table = V6_RANGES.map(([net, bits, cls]) => [parseIPv6(net)!, bits, cls] as const);

function classifyV4(bytes: readonly number[]): AddressClass {
  return v4Table.find(([net, bits]) => inPrefix(bytes, net, bits))?.[2] ?? 'public';
}

function classifyV6(bytes: readonly number[]): AddressClass {
  const match = v6Table.find(([net, bits]) => inPrefix(bytes, net, bits));
  if (match?.[2] === 'embedded-v4') {
    const isSixToFour = bytes[0] === 0x20 && bytes[1] === 0x02;
    return classifyV4(isSixToFour ? bytes.slice(2, 6) : bytes.slice(12, 16));
  }
  if (match) return match[2];
  // Only 2000::/3 is allocated as global unicast; anything else is unassigned space.
  return (bytes[0] & 0xe0) === 0x20 ? 'public' : 'reserved';
}

/** The class of an IP address in text form; undefined when the text is not an IP address. */
export function classifyIp(address: string): AddressClass | undefined {
  const v4 = parseIPv4(address);
  if (v4) return classifyV4(v4);
  const v6 = parseIPv6(address.replace(/^\[(.*)\]$/, '$1'));
  return v6 ? classifyV6(v6) : undefined;
}

/** True only for a globally routable unicast address. */
export const isPublicIp = (address: string): boolean => classifyIp(address) === 'public';
