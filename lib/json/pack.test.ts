import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PACK_MIN_LENGTH, packNumbers } from './pack.ts';

test('long number arrays become views of one buffer, in place; short ones, mixed ones and strings stay', () => {
  const long = (k: number) => Array.from({ length: PACK_MIN_LENGTH + k }, (_, i) => i / 7 - k);
  const value = {
    data: [
      { index: 0, embedding: long(0) },
      { index: 1, embedding: long(5) },
    ],
    short: [1, 2, 3],
    mixed: [...long(1).slice(1), 'x'],
    nested: [[...long(2)]],
    text: 'kept',
  };
  const copy = structuredClone(value);
  const buffer = packNumbers(value);
  assert.ok(buffer instanceof ArrayBuffer);
  assert.equal(buffer.byteLength, (3 * PACK_MIN_LENGTH + 7) * 8);
  const [a, b] = value.data.map((d) => d.embedding as unknown as Float64Array);
  assert.ok(a instanceof Float64Array && b instanceof Float64Array);
  assert.equal(a.buffer, buffer);
  assert.equal(b.buffer, buffer);
  assert.deepEqual(Array.from(a), copy.data[0].embedding);
  assert.deepEqual(Array.from(b), copy.data[1].embedding);
  assert.ok(value.nested[0] instanceof Float64Array);
  assert.deepEqual(Array.from(value.nested[0] as unknown as Float64Array), copy.nested[0]);
  assert.deepEqual(value.short, copy.short);
  assert.deepEqual(value.mixed, copy.mixed);
  assert.equal(value.text, 'kept');
});

test('nothing to pack: no buffer, nothing changed', () => {
  const value = { a: [1, 2], b: 'text', c: null };
  assert.equal(packNumbers(value), undefined);
  assert.deepEqual(value, { a: [1, 2], b: 'text', c: null });
  assert.equal(packNumbers(Array.from({ length: 100 }, (_, i) => i)), undefined, 'a top-level array has no holder');
});
