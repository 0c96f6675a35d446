import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createHash } from 'node:crypto';
import { holdsChars, OFF_LOOP_JSON_BYTES, parseJsonOffLoop, stringifyAndHashOffLoop, stringifyOffLoop } from './off-loop.ts';

const big = (n: number) => 'line one\n"quoted" \\ and ünïcödé 🌊\n'.repeat(Math.ceil(n / 36)).slice(0, n);

describe('JSON off the event loop', () => {
  test('parses bytes in the thread, shared or not, to the value JSON.parse gives', async () => {
    const value = { model: 'm', messages: [{ role: 'user', content: big(2 * OFF_LOOP_JSON_BYTES) }], n: 1.5, ok: true, none: null };
    const text = JSON.stringify(value);
    const shared = Buffer.from(new SharedArrayBuffer(Buffer.byteLength(text)));
    shared.write(text);
    assert.deepEqual(await parseJsonOffLoop(shared), value);
    assert.deepEqual(await parseJsonOffLoop(Buffer.from(text)), value);
    // A view into a larger buffer: only its own bytes are read.
    const padded = Buffer.from(`xx${text}yy`);
    assert.deepEqual(await parseJsonOffLoop(padded.subarray(2, padded.length - 2)), value);
  });

  test("a syntax error comes back as a SyntaxError with the parser's message", async () => {
    await assert.rejects(parseJsonOffLoop(Buffer.from('{"a": [1, 2')), (e: Error) => e instanceof SyntaxError && /JSON/.test(e.message));
  });

  test('writes the bytes JSON.stringify would, undefined fields left out', async () => {
    const value = { a: undefined, b: [1, undefined, 'x'], c: { d: big(OFF_LOOP_JSON_BYTES + 10), e: undefined }, f: new Date(0) };
    const bytes = await stringifyOffLoop(value);
    assert.equal(Buffer.from(bytes).toString('utf8'), JSON.stringify(value));
  });

  test('a value the thread cannot be sent (a function) is written in place, as JSON.stringify writes it', async () => {
    const value = { a: 1, f: () => 1, list: [() => 2] };
    assert.equal(Buffer.from(await stringifyOffLoop(value)).toString('utf8'), JSON.stringify(value));
  });

  test('many at once each get their own answer', async () => {
    const values = Array.from({ length: 20 }, (_, i) => ({ i, s: big(1000 + i) }));
    const parsed = await Promise.all(values.map((v) => parseJsonOffLoop(Buffer.from(JSON.stringify(v)))));
    assert.deepEqual(parsed, values);
  });

  test('holdsChars counts the strings of a value and stops at the limit', () => {
    assert.equal(holdsChars({ a: 'x'.repeat(10), b: ['y'.repeat(10)] }, 20), true);
    assert.equal(holdsChars({ a: 'x'.repeat(10), b: ['y'.repeat(9)], n: 12345 }, 20), false);
    assert.equal(holdsChars([{ content: [{ type: 'image_url', image_url: { url: 'd'.repeat(30) } }] }], 30), true);
    assert.equal(holdsChars(null), false);
  });
});

describe('typed parse and typed writes', () => {
  test('a typed parse gives long number arrays as Float64Arrays; writing them gives the numbers back', async () => {
    const vectors = Array.from({ length: 3 }, (_, i) => Array.from({ length: 100 }, (_, j) => (i * 100 + j) / 3 - 50));
    const text = JSON.stringify({ data: vectors.map((embedding, index) => ({ index, embedding })), usage: { prompt_tokens: 3 } });
    const value = (await parseJsonOffLoop(Buffer.from(text), { typed: true })) as { data: { embedding: Float64Array }[] };
    value.data.forEach((d, i) => {
      assert.ok(d.embedding instanceof Float64Array);
      assert.deepEqual(Array.from(d.embedding), vectors[i]);
    });
    assert.equal(Buffer.from(await stringifyOffLoop(value)).toString('utf8'), text);
  });

  test('stringifyAndHashOffLoop: the hash is of the bytes written', async () => {
    const value = { text: big(OFF_LOOP_JSON_BYTES), n: [1, 2, 3] };
    const { bytes, sha256 } = await stringifyAndHashOffLoop(value);
    assert.equal(sha256, createHash('sha256').update(bytes).digest('hex'));
    assert.equal(Buffer.from(bytes).toString('utf8'), JSON.stringify(value));
  });
});
