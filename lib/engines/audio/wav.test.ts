import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseWav, pcmSeconds, resample, wavHeader } from './wav.ts';

const tone = (n: number) => {
  const b = Buffer.alloc(n * 2);
  for (let i = 0; i < n; i++) b.writeInt16LE(i * 10 - 5000, i * 2);
  return b;
};

test('wav: a header with exact sizes parses back to the same samples; the streaming form reads to the end', () => {
  const pcm = tone(1000);
  const exact = Buffer.concat([wavHeader(16000, pcm.length), pcm]);
  assert.equal(exact.readUInt32LE(4), 36 + pcm.length);
  assert.deepEqual(parseWav(exact), { samples: pcm, sampleRate: 16000 });
  const streamed = Buffer.concat([wavHeader(8000), pcm]);
  assert.equal(streamed.readUInt32LE(40), 0xffffffff);
  assert.deepEqual(parseWav(streamed), { samples: pcm, sampleRate: 8000 });
  assert.equal(pcmSeconds(pcm.length, 16000), 1000 / 16000);
});

test('wav: chunks before data are skipped; other layouts and non-WAV are refused', () => {
  const pcm = tone(10);
  const header = wavHeader(16000, pcm.length);
  const list = Buffer.concat([Buffer.from('LIST'), Buffer.from([4, 0, 0, 0]), Buffer.from('INFO')]);
  const withList = Buffer.concat([header.subarray(0, 36), list, header.subarray(36), pcm]);
  assert.deepEqual(parseWav(withList).samples, pcm);
  const stereo = Buffer.from(header);
  stereo.writeUInt16LE(2, 22);
  assert.throws(() => parseWav(Buffer.concat([stereo, pcm])), /16-bit mono/);
  assert.throws(() => parseWav(Buffer.from('not a wav file at all')), /not a RIFF/);
  assert.throws(() => parseWav(header.subarray(0, 36)), /without a data chunk/);
});

test('wav: resampling 8 kHz to 16 kHz doubles the samples and interpolates between them', () => {
  const pcm = Buffer.alloc(6);
  pcm.writeInt16LE(0, 0);
  pcm.writeInt16LE(100, 2);
  pcm.writeInt16LE(200, 4);
  const up = resample(pcm, 8000, 16000);
  assert.deepEqual(
    Array.from({ length: up.length / 2 }, (_, i) => up.readInt16LE(i * 2)),
    [0, 50, 100, 150, 200, 200],
  );
  assert.equal(resample(pcm, 16000, 16000), pcm);
});
