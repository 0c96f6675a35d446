// flite in its worker pool and ffmpeg's encoders, for real: every voice speaks, every format decodes back, and a long
// text becomes one file piece by piece.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { SPEECH_FORMATS } from '../models/audio-models.ts';
import { runProcess } from '../engines/audio/processes.ts';
import { createFliteEngine } from '../engines/audio/flite/engine.ts';
import { FLITE_SAMPLE_RATE, FLITE_VOICES } from '../engines/audio/flite/pool.ts';
import { type SpeechProgress, speechAudio, synthesizeToFile } from './speech-audio.ts';
import { parseWav } from '../engines/audio/wav.ts';

const engine = createFliteEngine({ workers: 2 });
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lagoon-speech-test-'));
after(async () => {
  await engine.close?.();
  fs.rmSync(dir, { recursive: true, force: true });
});
const voice = (v = 'slt', speed = 1) => ({ voice: v, speed, signal: new AbortController().signal });
const collect = async (it: AsyncIterable<Buffer>) => {
  const out: Buffer[] = [];
  for await (const c of it) out.push(c);
  return Buffer.concat(out);
};

test('flite: each of the six voices speaks at 16 kHz; a faster speed is shorter; pure punctuation is silence', async () => {
  const lengths = await Promise.all(FLITE_VOICES.map((v) => engine.pcm('The time is now, half past ten.', voice(v))));
  for (const [i, pcm] of lengths.entries()) assert.ok(pcm.length / 2 / FLITE_SAMPLE_RATE > 0.3, `${FLITE_VOICES[i]} spoke`);
  const normal = await engine.pcm('A sentence to say at two speeds.', voice());
  const fast = await engine.pcm('A sentence to say at two speeds.', voice('slt', 2));
  assert.ok(fast.length < normal.length * 0.7, `speed 2: ${fast.length} vs ${normal.length}`);
  assert.equal((await engine.pcm('—', voice())).length, 0);
  assert.match(engine.refuses!('日本語') ?? '', /English/);
  assert.equal(engine.refuses!('Hello'), undefined);
});

test('formats: every format decodes back to about the same length of audio', async () => {
  const input = 'One sentence. And another one, a little longer than the first.';
  let wavSeconds = 0;
  for (const format of SPEECH_FORMATS) {
    const progress: SpeechProgress = { characters: 0, pieces: 0, totalPieces: 0 };
    const bytes = await collect(await speechAudio({ engine, ffmpeg: 'ffmpeg', input, format, voice: voice(), streaming: false, progress }));
    assert.equal(progress.pieces, 2);
    const file = path.join(dir, `out.${format}`);
    fs.writeFileSync(file, bytes);
    const rawArgs = format === 'pcm' ? ['-f', 's16le', '-ar', '16000', '-ac', '1'] : [];
    const decoded = await runProcess('ffmpeg', ['-nostdin', '-loglevel', 'error', ...rawArgs, '-i', file, '-f', 's16le', '-ac', '1', '-ar', '16000', 'pipe:1']);
    const seconds = decoded.length / 32000;
    if (format === 'wav') {
      wavSeconds = parseWav(bytes).samples.length / 32000;
      assert.equal(bytes.readUInt32LE(40), bytes.length - 44, 'a buffered WAV has exact sizes');
    }
    assert.ok(seconds > 2, `${format}: ${seconds} s`);
    if (wavSeconds) assert.ok(Math.abs(seconds - wavSeconds) < 0.2, `${format}: ${seconds} s vs ${wavSeconds} s`);
  }
});

test('a long text becomes one file, sentence by sentence, with progress; a WAV gets its sizes at the end', async () => {
  const input = Array.from({ length: 12 }, (_, i) => `This is sentence number ${i + 1} of a longer text.`).join(' ');
  const seen: number[] = [];
  const out = path.join(dir, 'long.wav');
  const r = await synthesizeToFile({ engine, ffmpeg: 'ffmpeg', input, format: 'wav', voice: voice(), outPath: out, onProgress: (p) => seen.push(p.pieces) });
  assert.deepEqual(
    seen,
    Array.from({ length: 12 }, (_, i) => i + 1),
  );
  assert.equal(r.characters, input.length);
  const bytes = fs.readFileSync(out);
  assert.equal(r.bytes, bytes.length);
  assert.equal(bytes.readUInt32LE(4), bytes.length - 8);
  assert.equal(bytes.readUInt32LE(40), bytes.length - 44);
  assert.ok(parseWav(bytes).samples.length / 32000 > 20);
  const mp3 = path.join(dir, 'long.mp3');
  await synthesizeToFile({ engine, ffmpeg: 'ffmpeg', input, format: 'mp3', voice: voice(), outPath: mp3 });
  assert.equal(fs.readFileSync(mp3).subarray(0, 3).toString('latin1'), 'ID3');
  const aborted = new AbortController();
  aborted.abort();
  await assert.rejects(
    synthesizeToFile({ engine, ffmpeg: 'ffmpeg', input, format: 'wav', voice: { ...voice(), signal: aborted.signal }, outPath: path.join(dir, 'gone.wav') }),
  );
  assert.equal(fs.existsSync(path.join(dir, 'gone.wav')), false, 'a failed file is removed');
});
