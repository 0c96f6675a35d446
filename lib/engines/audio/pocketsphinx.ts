// CMU PocketSphinx as child processes: `pocketsphinx_continuous -infile <16 kHz WAV> -time yes -remove_silence no`.
// The WAV is a temp file because `-infile /dev/stdin` fails from Node's spawn (its stdio are sockets). Silence removal
// is off because with it on the word times of some files come out shifted by seconds; without it a file is one
// utterance, so long audio is cut into pieces of at most half a minute at its quietest moments (memory stays flat,
// times stay right) and the pieces are decoded one after the other. With -time it prints one line per word:
// `word start end confidence`, in seconds; pauses (<sil>) of a third of a second or more end a segment.
import fs from 'node:fs/promises';
import path from 'node:path';
import { runProcess } from './processes.ts';
import type { TimedSegment, TimedWord, Transcript, TranscribeInput, TranscribeOptions, TranscriptionEngine } from './types.ts';
import { parseWav, wavHeader } from './wav.ts';

const WORD_LINE = /^(\S+) (-?\d+(?:\.\d+)?) (-?\d+(?:\.\d+)?) (-?\d+(?:\.\d+)?(?:e-?\d+)?)$/;
/** Markers and fillers pocketsphinx writes between words: sentence bounds, silence, noise ([NOISE], ++UM++). */
const NOT_A_WORD = /^(<s>|<\/s>|<sil>|\[[A-Z_]+\]|\+\+.*\+\+|\+[A-Z_]+\+)$/;
/** A pause this long (seconds) ends a segment. */
const SEGMENT_PAUSE = 0.3;

/** Words and segments from pocketsphinx_continuous's `-time yes` output, their times moved by `offset` seconds. */
export function parsePocketsphinx(output: string, offset = 0): Transcript {
  const words: TimedWord[] = [];
  const segments: TimedSegment[] = [];
  let current: TimedWord[] = [];
  const close = () => {
    if (current.length) {
      segments.push({ text: current.map((w) => w.word).join(' '), start: current[0].start, end: current[current.length - 1].end });
      words.push(...current);
    }
    current = [];
  };
  for (const line of output.split('\n')) {
    const m = WORD_LINE.exec(line.trim());
    if (!m) continue;
    const [token, start, end] = [m[1], Number(m[2]) + offset, Number(m[3]) + offset];
    if (NOT_A_WORD.test(token)) {
      if (token === '<s>' || token === '</s>' || (token === '<sil>' && end - start >= SEGMENT_PAUSE)) close();
      continue;
    }
    // Alternative pronunciations are numbered: "with(2)" is "with".
    current.push({ word: token.replace(/\(\d+\)$/, ''), start, end });
  }
  close();
  return { text: segments.map((s) => s.text).join(' '), language: 'en', words, segments };
}

const FRAME = 160; // 10 ms at 16 kHz

/**
 * Where to cut `samples` (16-bit mono at `rate`) into pieces of at most `maxSeconds`: each cut is the quietest 10 ms
 * frame in the last `searchSeconds` before the limit, so cuts fall in pauses, not words. Sample offsets, ascending,
 * ending with the length. Works through the audio in slices and yields to the event loop between them.
 */
export async function cutPoints(samples: Buffer, rate: number, maxSeconds = 30, searchSeconds = 6): Promise<number[]> {
  const n = samples.length >> 1;
  const frame = Math.max(1, Math.round((FRAME * rate) / 16_000));
  const max = maxSeconds * rate;
  const cuts: number[] = [];
  let start = 0;
  while (n - start > max) {
    const from = start + max - searchSeconds * rate;
    let best = start + max;
    let quietest = Number.POSITIVE_INFINITY;
    for (let f = from; f + frame <= start + max; f += frame) {
      let energy = 0;
      for (let i = f; i < f + frame; i++) {
        const s = samples.readInt16LE(i * 2);
        energy += s * s;
      }
      if (energy < quietest) {
        quietest = energy;
        best = f + (frame >> 1);
      }
    }
    cuts.push(best);
    start = best;
    await new Promise<void>((r) => setImmediate(r));
  }
  cuts.push(n);
  return cuts;
}

export interface PocketsphinxOptions {
  binary: string;
  hmm?: string;
  lm?: string;
  dict?: string;
  /** Longest piece decoded by one process (seconds). */
  pieceSeconds?: number;
}

export function createPocketsphinxEngine(opts: PocketsphinxOptions): TranscriptionEngine {
  const model: string[] = [];
  if (opts.hmm) model.push('-hmm', opts.hmm);
  if (opts.lm) model.push('-lm', opts.lm);
  if (opts.dict) model.push('-dict', opts.dict);
  const pieceSeconds = opts.pieceSeconds ?? 30;
  const decode = async (wav: string, signal: AbortSignal) =>
    (
      await runProcess(opts.binary, ['-infile', wav, '-time', 'yes', '-remove_silence', 'no', '-logfn', '/dev/null', ...model], {
        signal,
        maxStdout: 16 * 1024 * 1024,
        // About real time on a busy 2-core machine: four times a piece's length, and a base, bounds a stuck decoder.
        cpuSeconds: 20 + 4 * pieceSeconds,
      })
    ).toString('utf8');
  return {
    router: 'pocketsphinx',
    async transcribe(input: TranscribeInput, o: TranscribeOptions): Promise<Transcript> {
      if (input.seconds <= pieceSeconds) return parsePocketsphinx(await decode(input.wavPath, o.signal));
      const { samples, sampleRate } = parseWav(await fs.readFile(input.wavPath));
      const cuts = await cutPoints(samples, sampleRate, pieceSeconds);
      const parts: Transcript[] = [];
      let from = 0;
      for (const [i, to] of cuts.entries()) {
        const piece = path.join(path.dirname(input.wavPath), `piece-${i}.wav`);
        const data = samples.subarray(from * 2, to * 2);
        await fs.writeFile(piece, Buffer.concat([wavHeader(sampleRate, data.length), data]));
        try {
          parts.push(parsePocketsphinx(await decode(piece, o.signal), from / sampleRate));
        } finally {
          await fs.rm(piece, { force: true });
        }
        from = to;
      }
      const words = parts.flatMap((p) => p.words);
      const segments = parts.flatMap((p) => p.segments);
      return { text: segments.map((s) => s.text).join(' '), language: 'en', words, segments };
    },
  };
}
