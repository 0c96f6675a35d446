#!/usr/bin/env node
// Benchmark of the local audio engines, on this machine:
//   1. flite (WASI, one worker thread): real-time factor per voice (seconds of work per second of audio);
//   2. pocketsphinx: real-time factor, and word accuracy on what each flite voice says (the round trip);
//   3. POST /audio/speech through the server: time to the first audio (KiB) of a stream, against the whole answer.
// Last line: `bench-audio: flite_rtf=… pocketsphinx_rtf=… accuracy_slt=… ttfb_stream_ms=… total_ms=…`.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createFliteEngine } from '../lib/engines/audio/flite/engine.ts';
import { FLITE_SAMPLE_RATE, FLITE_VOICES } from '../lib/engines/audio/flite/pool.ts';
import { createPocketsphinxEngine } from '../lib/engines/audio/pocketsphinx.ts';
import { wavHeader } from '../lib/engines/audio/wav.ts';
import { DEFAULT_CATALOGUE } from '../lib/models/catalogue.ts';
import { startHarness } from '../e2e/support/harness.ts';
import { ROUND_TRIP_SENTENCES as SENTENCES, wordErrors } from '../e2e/support/word-errors.ts';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fixed = (n: number, d = 3) => n.toFixed(d);

async function engines() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lagoon-bench-audio-'));
  const flite = createFliteEngine({ workers: 1 });
  const sphinx = createPocketsphinxEngine({ binary: 'pocketsphinx_continuous' });
  const signal = new AbortController().signal;
  // The first piece compiles the module in the worker: not counted.
  await flite.pcm('Warm up.', { voice: 'slt', speed: 1, signal });
  const rows: { voice: string; fliteRtf: number; sphinxRtf: number; accuracy: number; seconds: number }[] = [];
  try {
    for (const voice of FLITE_VOICES) {
      let synth = 0;
      let recog = 0;
      let audio = 0;
      let errors = 0;
      let total = 0;
      for (const [i, sentence] of SENTENCES.entries()) {
        let t = performance.now();
        const pcm = await flite.pcm(sentence, { voice, speed: 1, signal });
        synth += performance.now() - t;
        const seconds = pcm.length / 2 / FLITE_SAMPLE_RATE;
        audio += seconds;
        const wav = path.join(dir, `${voice}-${i}.wav`);
        fs.writeFileSync(wav, Buffer.concat([wavHeader(FLITE_SAMPLE_RATE, pcm.length), pcm]));
        t = performance.now();
        const heard = await sphinx.transcribe({ wavPath: wav, seconds }, { words: true, signal });
        recog += performance.now() - t;
        const e = wordErrors(sentence, heard.text);
        errors += e.errors;
        total += e.words;
      }
      rows.push({ voice, fliteRtf: synth / 1000 / audio, sphinxRtf: recog / 1000 / audio, accuracy: 1 - errors / total, seconds: audio });
    }
  } finally {
    await flite.close?.();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

async function overHttp() {
  const catalogue = JSON.parse(fs.readFileSync(DEFAULT_CATALOGUE, 'utf8'));
  const h = await startHarness({ models: catalogue.models.filter((m: { type: string }) => m.type === 'tts' || m.type === 'asr') });
  const { key } = await h.newAccount({ usd: 100 });
  const input = SENTENCES.slice(0, 5).join(' ');
  const call = async (format: string, streaming: boolean) => {
    const t = performance.now();
    const res = await fetch(`${h.base}/audio/speech`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({ input, response_format: format, streaming }),
    });
    // The first KiB: a WAV header alone is not yet audio.
    let first = 0;
    let received = 0;
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      received += chunk.length;
      if (!first && received >= 1024) first = performance.now() - t;
    }
    return { first, total: performance.now() - t };
  };
  const out: Record<string, { first: number; total: number }> = {};
  try {
    await call('mp3', false); // warm the worker
    for (const [format, streaming] of [
      ['mp3', true],
      ['mp3', false],
      ['wav', true],
      ['opus', true],
    ] as const) {
      const runs = [];
      for (let i = 0; i < 5; i++) runs.push(await call(format, streaming));
      out[`${format}${streaming ? ' streamed' : ' buffered'}`] = { first: median(runs.map((r) => r.first)), total: median(runs.map((r) => r.total)) };
    }
  } finally {
    await h.close();
  }
  return out;
}

const rows = await engines();
console.log(`${SENTENCES.length} sentences per voice (${os.cpus()[0]?.model ?? 'cpu'}, ${os.availableParallelism()} cores)`);
console.log('| voice | audio s | flite RTF | pocketsphinx RTF | word accuracy |');
console.log('|---|---|---|---|---|');
for (const r of rows) console.log(`| ${r.voice} | ${fixed(r.seconds, 1)} | ${fixed(r.fliteRtf)} | ${fixed(r.sphinxRtf)} | ${fixed(r.accuracy * 100, 1)} % |`);
const http = await overHttp();
console.log('\n| /audio/speech (5 sentences) | first KiB ms | whole answer ms |');
console.log('|---|---|---|');
for (const [k, v] of Object.entries(http)) console.log(`| ${k} | ${Math.round(v.first)} | ${Math.round(v.total)} |`);
const slt = rows.find((r) => r.voice === 'slt')!;
const general = rows.filter((r) => r.voice !== 'awb_time');
console.log(
  `bench-audio: flite_rtf=${fixed(median(general.map((r) => r.fliteRtf)))} pocketsphinx_rtf=${fixed(median(general.map((r) => r.sphinxRtf)))} accuracy_slt=${fixed(slt.accuracy * 100, 1)} ttfb_stream_ms=${Math.round(http['mp3 streamed'].first)} total_ms=${Math.round(http['mp3 buffered'].total)}`,
);
