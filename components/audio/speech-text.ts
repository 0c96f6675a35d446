// What read-aloud says for an answer: its markdown as plain sentences (no symbols read out, code and formulas named
// rather than spelled, links by their words, citation marks dropped), cut into pieces a speech request may carry.
// Pure, so it is testable without a browser.

/** Characters as the server counts them (code points). */
export const characterCount = (s: string): number => {
  let n = 0;
  for (const _ of s) n++;
  return n;
};

export function speakableText(markdown: string): string {
  let t = markdown.replace(/\r\n?/g, '\n');
  t = t.replace(/^(```|~~~)[^\n]*\n[\s\S]*?(\n\1[^\n]*|$(?![\s\S]))/gm, '\n(code omitted.)\n');
  t = t.replace(/\$\$[\s\S]*?\$\$/g, ' (formula) ').replace(/\\\[[\s\S]*?\\\]/g, ' (formula) ');
  t = t.replace(/<think>[\s\S]*?<\/think>/g, ' ');
  t = t.replace(/<[^>\n]+>/g, ' ');
  t = t.replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1');
  t = t.replace(/\[([^\]]+)\]\((?:[^()]|\([^)]*\))*\)/g, '$1');
  t = t.replace(/\^\d{1,2}(?:\s*,\s*\d{1,2})*\^/g, '');
  t = t.replace(/https?:\/\/\S+/g, 'a link');
  t = t.replace(/`([^`\n]+)`/g, '$1');
  const lines = t.split('\n').map((line) => {
    let l = line.trim();
    if (/^(\|?\s*:?-{2,}:?\s*)+\|?$/.test(l) || /^([-*_]\s*){3,}$/.test(l)) return '';
    l = l
      .replace(/^#{1,6}\s+/, '')
      .replace(/^>\s?/, '')
      .replace(/^([-*+]|\d+[.)])\s+/, '')
      .replace(/^\[[ xX]\]\s+/, '');
    l = l.replace(/\s*\|\s*/g, ', ').replace(/^,\s*|,\s*$/g, '');
    l = l.replace(/(\*\*|__|~~)(.+?)\1/g, '$2').replace(/(^|[\s(])[*_]([^*_\s][^*_]*?)[*_](?=[\s.,;:!?)]|$)/g, '$1$2');
    l = l.replace(/[*#]+/g, ' ').replace(/\s+/g, ' ').trim();
    // A heading or list item without its own stop still ends where it ends: the voice pauses there.
    return l && !/[.!?:;,)"'”’]$/.test(l) ? `${l}.` : l;
  });
  return lines.filter(Boolean).join('\n').trim();
}

/** The text in pieces of at most `max` characters, cut between sentences (or, for a longer sentence, between words). */
export function speechPieces(text: string, max: number): string[] {
  const sentences = text.match(/[^.!?\n]+(?:[.!?]+["')”’]*|\n|$)\s*/g) ?? [];
  const pieces: string[] = [];
  let current = '';
  const push = (s: string) => {
    const trimmed = s.trim();
    if (trimmed) pieces.push(trimmed);
  };
  for (const sentence of sentences) {
    if (characterCount((current + sentence).trimEnd()) <= max) {
      current += sentence;
      continue;
    }
    push(current);
    current = '';
    if (characterCount(sentence.trimEnd()) <= max) {
      current = sentence;
      continue;
    }
    for (const word of sentence.split(/(\s+)/)) {
      if (characterCount((current + word).trimEnd()) > max) {
        push(current);
        current = '';
      }
      // A single "word" longer than a piece (a long token) is cut where it must be.
      let w = word;
      while (characterCount(w) > max) {
        const head = [...w].slice(0, max).join('');
        push(head);
        w = w.slice(head.length);
      }
      current += w;
    }
  }
  push(current);
  return pieces;
}
