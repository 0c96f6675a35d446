import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fromBase64, l2Normalise, shorten, toBase64 } from './vectors.ts';

describe('embedding vectors', () => {
  test('l2Normalise scales to unit length and leaves a zero vector alone', () => {
    assert.deepEqual(l2Normalise([3, 4]), [0.6, 0.8]);
    assert.deepEqual(l2Normalise([0, 0, 0]), [0, 0, 0]);
  });

  test('shorten keeps the leading components, re-normalised; no-op when not shorter', () => {
    assert.deepEqual(shorten([0.6, 0.8, 0], 1), [1]);
    const v = shorten([0.5, 0.5, 0.5, 0.5], 2);
    assert.ok(Math.abs(v[0] - Math.SQRT1_2) < 1e-12 && Math.abs(v[1] - Math.SQRT1_2) < 1e-12);
    assert.deepEqual(shorten([0.6, 0.8], 2), [0.6, 0.8]);
    assert.deepEqual(shorten([0.6, 0.8], undefined), [0.6, 0.8]);
  });

  test('base64 is the little-endian float32 bytes, as OpenAI sends it', () => {
    // 1.0f = 00 00 80 3f, -2.0f = 00 00 00 c0 (little-endian).
    assert.equal(toBase64([1, -2]), Buffer.from([0, 0, 0x80, 0x3f, 0, 0, 0, 0xc0]).toString('base64'));
    const v = [0.1, -0.25, 3.5e-8];
    const back = fromBase64(toBase64(v));
    back.forEach((x, i) => assert.equal(x, Math.fround(v[i])));
    assert.deepEqual(fromBase64(toBase64([])), []);
  });
});
