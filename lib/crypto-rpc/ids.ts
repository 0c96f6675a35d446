// JSON-RPC ids in raw JSON text. A client's ids are sequence numbers of its transport (viem and @solana/kit count
// them per request), so a retried call carries a new id: an Idempotency-Key compares calls without their ids, and a
// replay answers with the retry's ids. Both are done on the text, never by parsing and re-serialising it, because
// the numbers in a body or an answer may exceed what a JavaScript number holds exactly.

/** Where the value of a top-level `"id"` member sits: in the body's object, or in the `item`-th object of its array. */
export interface IdSpan {
  item: number;
  start: number;
  end: number;
}

const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

function skipSpace(t: string, i: number): number {
  while (i < t.length && isSpace(t.charCodeAt(i))) i++;
  return i;
}

/** The index just past the string that starts at `i` (a `"`). */
function skipString(t: string, i: number): number {
  for (i++; i < t.length; i++) {
    const c = t[i];
    if (c === '\\') i++;
    else if (c === '"') return i + 1;
  }
  throw new SyntaxError('unterminated string');
}

/** The index just past the value that starts at `i`. */
function skipValue(t: string, i: number): number {
  const c = t[i];
  if (c === '"') return skipString(t, i);
  if (c === '{' || c === '[') {
    let depth = 0;
    for (; i < t.length; i++) {
      const d = t[i];
      if (d === '"') i = skipString(t, i) - 1;
      else if (d === '{' || d === '[') depth++;
      else if (d === '}' || d === ']') {
        depth--;
        if (depth === 0) return i + 1;
      }
    }
    throw new SyntaxError('unterminated value');
  }
  while (i < t.length && !isSpace(t.charCodeAt(i)) && t[i] !== ',' && t[i] !== '}' && t[i] !== ']') i++;
  return i;
}

/** The span of the `"id"` value of the object at `i`, if it has one, and the index just past the object. */
function objectId(t: string, i: number, item: number): { span?: IdSpan; end: number } {
  let span: IdSpan | undefined;
  i = skipSpace(t, i + 1);
  if (t[i] === '}') return { end: i + 1 };
  for (;;) {
    const keyEnd = skipString(t, i);
    const key = JSON.parse(t.slice(i, keyEnd)) as string;
    i = skipSpace(t, keyEnd) + 1; // past ':'
    const start = skipSpace(t, i);
    const end = skipValue(t, start);
    if (key === 'id') span = { item, start, end };
    i = skipSpace(t, end);
    if (t[i] === '}') return { span, end: i + 1 };
    i = skipSpace(t, i + 1); // past ','
  }
}

/** The spans of the top-level ids of a valid JSON text (an object, or an array of values). */
export function idSpans(text: string): IdSpan[] {
  const spans: IdSpan[] = [];
  let i = skipSpace(text, 0);
  if (text[i] === '{') {
    const { span } = objectId(text, i, 0);
    if (span) spans.push(span);
    return spans;
  }
  if (text[i] !== '[') return spans;
  i = skipSpace(text, i + 1);
  for (let item = 0; i < text.length && text[i] !== ']'; item++) {
    if (text[i] === '{') {
      const r = objectId(text, i, item);
      if (r.span) spans.push(r.span);
      i = r.end;
    } else i = skipValue(text, i);
    i = skipSpace(text, i);
    if (text[i] === ',') i = skipSpace(text, i + 1);
  }
  return spans;
}

/** The text with some spans replaced (each by `by(span)`, or left as it is when that is undefined). */
export function replaceSpans(text: string, spans: IdSpan[], by: (span: IdSpan) => string | undefined): string {
  let out = '';
  let at = 0;
  for (const s of [...spans].sort((a, b) => a.start - b.start)) {
    const r = by(s);
    if (r === undefined) continue;
    out += text.slice(at, s.start) + r;
    at = s.end;
  }
  return out + text.slice(at);
}

/** The request without its ids: what "the same request" means for an Idempotency-Key. */
export const withoutIds = (text: string): string => replaceSpans(text, idSpans(text), () => 'null');

/** Each call's id as written (null for a notification), by position. */
export function callIds(text: string, count: number): (string | null)[] {
  const ids: (string | null)[] = Array.from({ length: count }, () => null);
  for (const s of idSpans(text)) if (s.item < count) ids[s.item] = text.slice(s.start, s.end);
  return ids;
}

/**
 * A stored answer for a retry: each answer whose id was the original call's k-th id gets the retry's k-th id (ids
 * compared as JSON values, first unused match; answers without a match, such as id null errors, are left alone).
 */
export function answerWithIds(answer: string, original: (string | null)[], retry: (string | null)[]): string {
  if (!answer.trim()) return answer;
  const used = new Set<number>();
  const same = (a: string, b: string) => a === b || JSON.stringify(JSON.parse(a)) === JSON.stringify(JSON.parse(b));
  return replaceSpans(answer, idSpans(answer), (s) => {
    const idText = answer.slice(s.start, s.end);
    const k = original.findIndex((o, i) => !used.has(i) && o !== null && same(o, idText));
    const by = k < 0 ? null : retry[k];
    if (by === null || by === undefined) return undefined;
    used.add(k);
    return by;
  });
}
