// Text → passages a chat can quote: about `target` characters each, cut at the strongest boundary near the end
// (a blank line, then a line break, then a sentence end, then a space), each starting a little before the previous
// one ended (`overlap`), so a fact that straddles a cut is whole in one of the two.

export interface ChunkOptions {
  /** The length a passage aims at, in characters. */
  target?: number;
  /** How far back the next passage starts, in characters (at a word boundary). */
  overlap?: number;
}

export const CHUNK_TARGET = 1000;
export const CHUNK_OVERLAP = 150;

const BOUNDARIES = [/\n\s*\n/g, /\n/g, /[.!?。！？]["')\]]?\s/g, /\s/g];

/** Where to cut `text` between `min` and `max`: just after the last strongest boundary found there, else at `max`. */
function cutAt(text: string, min: number, max: number): number {
  const window = text.slice(min, max);
  for (const re of BOUNDARIES) {
    re.lastIndex = 0;
    let end = -1;
    for (let m = re.exec(window); m; m = re.exec(window)) end = m.index + m[0].length;
    if (end > 0) return min + end;
  }
  return max;
}

export function chunkText(input: string, opts: ChunkOptions = {}): string[] {
  const target = Math.max(100, opts.target ?? CHUNK_TARGET);
  const overlap = Math.max(0, Math.min(Math.floor(target / 2), opts.overlap ?? CHUNK_OVERLAP));
  // Runs of spaces and of blank lines carry no meaning for retrieval; paragraph breaks are kept as boundaries.
  const text = input
    .replace(/\r\n?/g, '\n')
    .replace(/[ \t\f\v\u00a0]+/g, ' ')
    .replace(/ ?\n ?/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  const out: string[] = [];
  let start = 0;
  while (start < text.length) {
    if (text.length - start <= target * 1.25) {
      out.push(text.slice(start).trim());
      break;
    }
    const end = cutAt(text, start + Math.floor(target * 0.6), start + target);
    const piece = text.slice(start, end).trim();
    if (piece) out.push(piece);
    // The next passage starts up to `overlap` back: at a sentence's start if one begins there, else a word's.
    const from = Math.max(start + 1, end - overlap);
    const tail = text.slice(from, end);
    const sentence = /[.!?。！？]["')\]]?\s+(?=\S)/.exec(tail);
    const word = /\s+(?=\S)/.exec(tail);
    const step = sentence ?? word;
    start = step ? from + step.index + step[0].length : end;
  }
  return out.filter((p) => p.length > 0);
}
