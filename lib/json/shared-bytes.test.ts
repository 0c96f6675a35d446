import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { test } from 'node:test';
import { readAll, readShared } from './shared-bytes.ts';

const source = (...parts: string[]) => Readable.from(parts.map((p) => Buffer.from(p)));

test('readShared gathers a body of known length into shared memory', async () => {
  const got = await readShared(source('{"a":', '[1,2', ']}'), 11);
  assert.ok(got.buffer instanceof SharedArrayBuffer);
  assert.equal(got.length, 11);
  assert.equal(got.toString(), '{"a":[1,2]}');
});

test('readShared: fewer bytes than said are what arrived; more is an error', async () => {
  assert.equal((await readShared(source('abc'), 10)).toString(), 'abc');
  await assert.rejects(readShared(source('abcdef', 'gh'), 7), /longer than the 7 bytes/);
});

test('readAll joins a short body in plain memory and a long one in shared memory', async () => {
  const short = await readAll(source('ab', 'cd'), 10);
  assert.equal(short.toString(), 'abcd');
  assert.ok(!(short.buffer instanceof SharedArrayBuffer));
  const long = await readAll(source('abcdef', 'ghij', 'k'), 10);
  assert.equal(long.toString(), 'abcdefghijk');
  assert.ok(long.buffer instanceof SharedArrayBuffer);
});
