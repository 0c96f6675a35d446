// Word accuracy of a transcript: the word edit distance (substitutions, insertions, deletions) to the reference, over
// lowercase words without punctuation. Used by the round-trip tests and scripts/bench-audio.ts.

/** Everyday sentences for speech → transcription round trips (flite voices; pocketsphinx's US English model). */
export const ROUND_TRIP_SENTENCES = [
  'Please call Stella and ask her to bring these things with her from the store.',
  'The quick brown fox jumps over the lazy dog.',
  'We will meet at the train station on Wednesday morning.',
  'She sells fresh fruit and vegetables at the market every weekend.',
  'Turn left at the next corner and walk two blocks to the library.',
  'The weather today is cold and windy with a chance of rain.',
  'My brother bought a new car last week and drove it to the beach.',
  'Can you help me carry these heavy boxes up the stairs?',
];

const words = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z' ]/g, ' ')
    .split(/\s+/)
    .filter(Boolean);

export function wordErrors(ref: string, hyp: string): { errors: number; words: number } {
  const r = words(ref);
  const h = words(hyp);
  let prev = Array.from({ length: h.length + 1 }, (_, j) => j);
  for (let i = 1; i <= r.length; i++) {
    const cur = [i];
    for (let j = 1; j <= h.length; j++) cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (r[i - 1] === h[j - 1] ? 0 : 1));
    prev = cur;
  }
  return { errors: prev[h.length], words: r.length };
}

/** 1 − word error rate. */
export const wordAccuracy = (ref: string, hyp: string): number => {
  const e = wordErrors(ref, hyp);
  return 1 - e.errors / e.words;
};
