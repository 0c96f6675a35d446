// Text → the pieces speech is made in: sentences, so a stream can start playing after the first one and a text of
// any length (an article, a chapter) is made one bounded piece at a time. A sentence too long for one piece is cut
// at a clause (comma, dash, semicolon) or, failing that, a space.

/** Pieces are at most this many characters (flite's prosody also works best on sentence-sized input). */
export const MAX_PIECE = 400;

const SENTENCE_END = /(?<=[.!?…。！？]["'”’)\]]*)\s+|\n\s*\n|\n(?=\s*[-*•\d]+[.)]?\s)/u;

/** The pieces of `text`, in order; together they hold every non-space character of it. */
export function splitSentences(text: string, max = MAX_PIECE): string[] {
  const out: string[] = [];
  for (const raw of text.split(SENTENCE_END)) {
    const s = raw.replace(/\s+/g, ' ').trim();
    if (s) out.push(...cut(s, max));
  }
  return out;
}

function cut(s: string, max: number): string[] {
  const out: string[] = [];
  let rest = s;
  while ([...rest].length > max) {
    const head = rest.slice(0, max);
    // The last clause break in the second half of the window, else the last space, else a hard cut.
    const clause = Math.max(head.lastIndexOf(', '), head.lastIndexOf('; '), head.lastIndexOf(' – '), head.lastIndexOf(' - '), head.lastIndexOf(': '));
    const space = head.lastIndexOf(' ');
    const at = clause > max / 2 ? clause + 1 : space > max / 4 ? space : max;
    out.push(rest.slice(0, at).trim());
    rest = rest.slice(at).trim();
  }
  if (rest) out.push(rest);
  return out;
}

/** Characters as the price counts them: Unicode code points, not UTF-16 units. */
export const characterCount = (text: string): number => {
  let n = 0;
  for (const _ of text) n++;
  return n;
};

/**
 * Text flite can say: it reads ASCII only, so accents are taken off (café → cafe), typographic quotes and dashes
 * become plain ones, and anything else outside ASCII becomes a space.
 */
export function toFliteText(s: string): string {
  return s
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(/[‘’‚′]/g, "'")
    .replace(/[“”„″]/g, '"')
    .replace(/[–—―]/g, ' - ')
    .replace(/…/g, '...')
    .replace(/[^\x20-\x7e\n]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}
