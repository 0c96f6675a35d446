import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cutPoints, parsePocketsphinx } from './pocketsphinx.ts';

const OUTPUT = `good morning everyone the weather is nice today
<s> 0.000 0.170 0.999500
good(2) 0.180 0.350 0.123892
morning 0.360 0.760 0.995609
[NOISE] 0.770 0.800 1.0
everyone 0.810 1.380 1.000100
<sil> 1.390 3.610 1.000300
the 3.620 3.870 0.847708
weather 3.880 4.260 0.615971
<sil> 4.270 4.300 1.0
is 4.310 4.420 0.990049
nice 4.430 4.840 0.904103
today 4.850 5.450 2.76e-01
</s> 5.460 5.500 1.000000
`;

test('pocketsphinx: words without markers or pronunciation numbers; a long pause ends a segment, a short one does not', () => {
  const t = parsePocketsphinx(OUTPUT);
  assert.equal(t.text, 'good morning everyone the weather is nice today');
  assert.deepEqual(t.words[0], { word: 'good', start: 0.18, end: 0.35 });
  assert.equal(t.words.length, 8);
  assert.deepEqual(t.segments, [
    { text: 'good morning everyone', start: 0.18, end: 1.38 },
    { text: 'the weather is nice today', start: 3.62, end: 5.45 },
  ]);
  const shifted = parsePocketsphinx(OUTPUT, 30);
  assert.equal(shifted.words[0].start, 30.18);
  assert.equal(shifted.segments[1].end, 35.45);
  assert.deepEqual(parsePocketsphinx(''), { text: '', language: 'en', words: [], segments: [] });
});

test('pocketsphinx: long audio is cut in its quietest frames, never past the piece length', async () => {
  const rate = 16000;
  const seconds = 75;
  const pcm = Buffer.alloc(seconds * rate * 2);
  // Loud everywhere except a quiet 100 ms at 27 s and at 53 s.
  for (let i = 0; i < seconds * rate; i++) {
    const t = i / rate;
    const quiet = (t >= 27 && t < 27.1) || (t >= 53 && t < 53.1);
    pcm.writeInt16LE(quiet ? 0 : Math.round(10000 * Math.sin(i / 3)), i * 2);
  }
  const cuts = await cutPoints(pcm, rate, 30, 6);
  assert.equal(cuts.at(-1), seconds * rate);
  assert.equal(cuts.length, 3);
  assert.ok(Math.abs(cuts[0] / rate - 27.05) < 0.06, `first cut ${cuts[0] / rate}`);
  assert.ok(Math.abs(cuts[1] / rate - 53.05) < 0.06, `second cut ${cuts[1] / rate}`);
  assert.deepEqual(await cutPoints(pcm.subarray(0, 10 * rate * 2), rate), [10 * rate]);
});
