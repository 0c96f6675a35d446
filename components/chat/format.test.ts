import assert from 'node:assert/strict';
import { test } from 'node:test';
import { displayFileName, formatBytes, formatCharge, formatCount, formatDiem, formatPrice, formatUsd, hostnameOf } from './format.ts';

test('costs keep two significant digits when small', () => {
  assert.equal(formatUsd(0, 'en'), '$0');
  assert.equal(formatUsd(0.000123, 'en'), '$0.00012');
  assert.equal(formatUsd(0.0000001234, 'en'), '$0.00000012');
  assert.equal(formatUsd(0.01234, 'en'), '$0.0123');
  assert.equal(formatUsd(123.456, 'en'), '$123.46');
  assert.equal(formatDiem(0.0042, 'en'), '0.0042 DIEM');
  assert.equal(formatCharge(0.0012, 0.05, 'en'), '$0.0012 + 0.05 DIEM');
  assert.equal(formatPrice(0.15, 'en'), '$0.15');
  assert.equal(formatPrice(2, 'en'), '$2');
  assert.equal(formatPrice(2.5, 'en'), '$2.50');
  assert.equal(formatPrice(0.015, 'en'), '$0.015');
  assert.equal(formatPrice(0, 'en'), undefined);
});

test('in German the same amounts keep their digits and unit, with German separators', () => {
  // Intl puts a no-break space between the figure and the sign.
  const plain = (s: string | undefined) => s?.replace(/\u00a0/g, ' ');
  assert.equal(plain(formatUsd(0.000123, 'de')), '0,00012 $');
  assert.equal(plain(formatUsd(1234.5, 'de')), '1.234,5 $');
  assert.equal(formatDiem(0.0042, 'de'), '0,0042 DIEM');
  assert.equal(plain(formatPrice(2.5, 'de')), '2,50 $');
  assert.equal(formatCount(1234567, 'de'), '1.234.567');
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
