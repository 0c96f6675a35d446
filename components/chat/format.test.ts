import assert from 'node:assert/strict';
import { test } from 'node:test';
import { displayFileName, formatBytes, formatDiem, formatPrice, formatUsd, hostnameOf } from './format.ts';

test('costs keep two significant digits when small', () => {
  assert.equal(formatUsd(0), '$0');
  assert.equal(formatUsd(0.000123), '$0.00012');
  assert.equal(formatUsd(0.0000001234), '$0.00000012');
  assert.equal(formatUsd(0.01234), '$0.0123');
  assert.equal(formatUsd(123.456), '$123.46');
  assert.equal(formatDiem(0.0042), '0.0042 DIEM');
  assert.equal(formatPrice(0.15), '$0.15');
  assert.equal(formatPrice(0), 'free');
});

test('sizes, hosts and file names', () => {
  assert.equal(formatBytes(512), '512 B');
  assert.equal(formatBytes(1536), '1.5 KB');
  assert.equal(formatBytes(10 * 1024 * 1024), '10 MB');
  assert.equal(hostnameOf('https://www.example.com/a'), 'example.com');
  assert.equal(hostnameOf('not a url'), 'not a url');
  assert.equal(displayFileName('C:\\Users\\me\\report.pdf'), 'report.pdf');
  assert.equal(displayFileName('a\u0000b\u202Ec.txt'), 'abc.txt');
  assert.equal(displayFileName('x'.repeat(100) + '.pdf', 20).length, 20);
  assert.equal(displayFileName('\u202E'), 'file');
});
