// Pure text helpers for conversations: title cleaning, automatic titles, LIKE escaping and search snippets.

const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff]/g;

/** Removes control and invisible formatting characters, turns line breaks and tabs into spaces, collapses runs. */
export function cleanLine(s: string): string {
  return s
    .replace(/[\t\r\n]+/g, ' ')
    .replace(CONTROL, '')
    .replace(/\s+/g, ' ')
    .trim();
}

export const DEFAULT_TITLE = 'New chat';
export const TITLE_MAX = 200;
const AUTO_TITLE_MAX = 60;

/** Markdown decoration removed from one line of text. */
function stripInlineMarkdown(line: string): string {
  return line
    .replace(/<[^>]{1,200}>/g, ' ') // html tags
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1') // images → alt
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1') // links → text
    .replace(/\[\^?\d+\]/g, '') // citation / footnote markers
    .replace(/^\s{0,3}#{1,6}\s+/, '') // heading
    .replace(/^\s*(?:>\s*)+/, '') // blockquote
    .replace(/^\s*(?:[-*+]|\d{1,3}[.)])\s+(?:\[[ xX]\]\s+)?/, '') // list item, task box
    .replace(/(\*\*|__|~~|`+)/g, '') // strong, strike, code
    .replace(/(^|[\s(])[*_]+|[*_]+(?=[\s).,!?:;]|$)/g, '$1') // emphasis at word edges
    .replace(/^[\s=-]+$/, ''); // setext underline / rule
}

/**
 * A readable title from the first user message: its first sentence or line with the markdown removed, cut to about
 * 60 characters on a word boundary. "New chat" when nothing readable is left.
 */
export function autoTitle(text: string): string {
  const src = typeof text === 'string' ? text : '';
  const lines = src.split(/\r?\n/);
  const prose: string[] = [];
  const code: string[] = [];
  let inFence = false;
  for (const raw of lines) {
    if (/^\s*(```|~~~)/.test(raw)) {
      inFence = !inFence;
      continue;
    }
    (inFence ? code : prose).push(raw);
  }
  const pick = (candidates: string[]) => {
    for (const l of candidates) {
      const cleaned = cleanLine(stripInlineMarkdown(l));
      if (/[\p{L}\p{N}]/u.test(cleaned)) return cleaned;
    }
    return '';
  };
  let line = pick(prose) || pick(code);
  if (!line) return DEFAULT_TITLE;

  // First sentence: up to a . ! or ? followed by a space (keeping ! and ?, dropping a final period).
  const end = /[.!?…](?=\s|$)/.exec(line);
  if (end && end.index > 0) line = line.slice(0, end.index + 1);
  line = line.replace(/[.:;,\s]+$/, '').trim();
  if (!line) return DEFAULT_TITLE;

  const chars = Array.from(line);
  if (chars.length <= AUTO_TITLE_MAX) return line;
  const cut = chars.slice(0, AUTO_TITLE_MAX).join('');
  const space = cut.lastIndexOf(' ');
  const head = space >= 20 ? cut.slice(0, space) : cut;
  return `${head.replace(/[\s.,:;!?-]+$/, '')}…`;
}

/** The text made safe inside a LIKE pattern that uses `ESCAPE '\'`. */
export function escapeLike(s: string): string {
  return s.replace(/[\\%_]/g, (c) => `\\${c}`);
}

const SNIPPET_RADIUS = 60;

/** About 120 characters of text around the first case-insensitive occurrence of query, with ellipses where cut. */
export function snippet(text: string, query: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const at = flat.toLowerCase().indexOf(query.toLowerCase());
  if (at < 0) return flat.length > SNIPPET_RADIUS * 2 ? `${flat.slice(0, SNIPPET_RADIUS * 2).trimEnd()}…` : flat;
  let start = Math.max(0, at - SNIPPET_RADIUS);
  let stop = Math.min(flat.length, at + query.length + SNIPPET_RADIUS);
  // Prefer word boundaries when cutting.
  if (start > 0) {
    const sp = flat.indexOf(' ', start);
    if (sp >= 0 && sp < at) start = sp + 1;
  }
  if (stop < flat.length) {
    const sp = flat.lastIndexOf(' ', stop);
    if (sp > at + query.length) stop = sp;
  }
  return `${start > 0 ? '…' : ''}${flat.slice(start, stop)}${stop < flat.length ? '…' : ''}`;
}
