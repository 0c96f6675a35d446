import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { classifyIp, isPublicIp, parseIPv6 } from './ip-ranges.ts';
import type { AddressClass } from './ip-ranges.ts';

function expectClasses(cases: Record<string, AddressClass | undefined>): void {
  for (const [address, expected] of Object.entries(cases)) assert.equal(classifyIp(address), expected, address);
}

describe('classifyIp: IPv4', () => {
  it('finds public addresses, including ones next to blocked ranges', () => {
    expectClasses({
      '8.8.8.8': 'public',
      '1.1.1.1': 'public',
      '93.184.216.34': 'public',
      '9.255.255.255': 'public',
      '11.0.0.0': 'public',
      '100.63.255.255': 'public',
      '100.128.0.0': 'public',
      '126.255.255.255': 'public',
      '128.0.0.0': 'public',
      '169.253.255.255': 'public',
      '172.15.255.255': 'public',
      '172.32.0.0': 'public',
      '192.167.255.255': 'public',
      '192.169.0.0': 'public',
      '198.17.255.255': 'public',
      '198.20.0.0': 'public',
      '223.255.255.255': 'public',
    });
  });

  it('classifies special-purpose ranges', () => {
    expectClasses({
      '0.0.0.0': 'unspecified',
      '0.1.2.3': 'unspecified',
      '10.0.0.1': 'private',
      '10.255.255.255': 'private',
      '100.64.0.1': 'cgnat',
      '100.127.255.255': 'cgnat',
      '127.0.0.1': 'loopback',
      '127.255.255.254': 'loopback',
      '169.254.0.1': 'link-local',
      '169.254.169.254': 'metadata',
      '169.254.170.2': 'metadata',
      '100.100.100.200': 'metadata',
      '172.16.0.1': 'private',
      '172.31.255.255': 'private',
      '192.0.0.192': 'reserved',
      '192.0.2.10': 'documentation',
      '192.88.99.1': 'reserved',
      '192.168.1.1': 'private',
      '198.18.0.1': 'reserved',
      '198.19.255.255': 'reserved',
      '198.51.100.7': 'documentation',
      '203.0.113.9': 'documentation',
      '224.0.0.1': 'multicast',
      '239.255.255.250': 'multicast',
      '240.0.0.1': 'reserved',
      '255.255.255.254': 'reserved',
      '255.255.255.255': 'broadcast',
    });
  });
});

describe('classifyIp: IPv6', () => {
  it('finds global unicast public', () => {
    expectClasses({
      '2606:4700:4700::1111': 'public',
      '2001:4860:4860::8888': 'public',
      '2a00:1450:4001:81b::200e': 'public',
      '[2606:4700::1]': 'public',
    });
  });

  it('classifies special-purpose ranges', () => {
    expectClasses({
      '::': 'unspecified',
      '0:0:0:0:0:0:0:0': 'unspecified',
      '::1': 'loopback',
      '0:0:0:0:0:0:0:1': 'loopback',
      'fe80::1': 'link-local',
      'fe80::1%eth0': 'link-local',
      'febf:ffff::1': 'link-local',
      'fec0::1': 'private',
      'fc00::1': 'unique-local',
      'fd12:3456:789a::1': 'unique-local',
      'fd00:ec2::254': 'metadata',
      'ff02::1': 'multicast',
      'ff05::1:3': 'multicast',
      '2001:db8::1': 'documentation',
      '3fff::1': 'documentation',
      '2001::1': 'reserved', // Teredo
      '2001:1ff::1': 'reserved',
      '100::1': 'reserved',
      '64:ff9b:1::1': 'reserved',
      '5f00::1': 'reserved',
      '::1.2.3.4': 'reserved', // deprecated IPv4-compatible
      '4000::1': 'reserved', // outside 2000::/3
      '::ffff:0:1.2.3.4': 'reserved', // IPv4-translated
    });
  });

  it('judges IPv6 forms that embed an IPv4 address by that address', () => {
    expectClasses({
      '::ffff:127.0.0.1': 'loopback',
      '::ffff:7f00:1': 'loopback',
      '::FFFF:10.0.0.1': 'private',
      '::ffff:169.254.169.254': 'metadata',
      '::ffff:8.8.8.8': 'public',
      '0:0:0:0:0:ffff:c0a8:0101': 'private',
      '64:ff9b::127.0.0.1': 'loopback',
      '64:ff9b::808:808': 'public',
      '2002:7f00:1::': 'loopback', // 6to4 of 127.0.0.1
      '2002:a9fe:a9fe::1': 'metadata', // 6to4 of 169.254.169.254
      '2002:808:808::1': 'public',
    });
  });

  it('returns undefined for things that are not IP addresses', () => {
    expectClasses({ '': undefined, localhost: undefined, '1.2.3': undefined, '256.1.1.1': undefined, '::g': undefined, '1:2:3:4:5:6:7:8:9': undefined });
    assert.equal(isPublicIp('example.com'), false);
    assert.equal(isPublicIp('8.8.8.8'), true);
    assert.equal(isPublicIp('127.0.0.1'), false);
  });
});

describe('parseIPv6', () => {
  it('expands every textual form to 16 bytes', () => {
    assert.deepEqual(parseIPv6('::1'), [...Array(15).fill(0), 1]);
    assert.deepEqual(parseIPv6('1::'), [0, 1, ...Array(14).fill(0)]);
    assert.deepEqual(parseIPv6('2001:db8::ff00:42:8329'), [0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0xff, 0, 0, 0x42, 0x83, 0x29]);
    assert.deepEqual(parseIPv6('::ffff:1.2.3.4'), [...Array(10).fill(0), 0xff, 0xff, 1, 2, 3, 4]);
    assert.deepEqual(parseIPv6('1:2:3:4:5:6:7:8'), [0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0, 7, 0, 8]);
    assert.equal(parseIPv6('1.2.3.4'), undefined);
  });
});
