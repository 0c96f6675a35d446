// Query words for full-text search, and reciprocal rank fusion of the lexical and vector rankings.

const MAX_TERMS = 32;
// The commonest English words match nearly every passage: they only slow the OR query down (PostgreSQL's English
// configuration drops them itself; FTS5 has no stop list).
const STOP = new Set(
  'a an and are as at be but by for from has have he her his i in is it its of on or she that the their them they this to was were what when where which who why will with you your do does did how not no so than then there these those we our us me my'.split(
    ' ',
  ),
);

/** Letters and digits only, lower case, without stop words, at most 32, in order of first appearance. */
export function queryTerms(query: string): string[] {
  const words = query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  const out: string[] = [];
  for (const w of words) {
    if (w.length > 64 || STOP.has(w) || out.includes(w)) continue;
    out.push(w);
    if (out.length >= MAX_TERMS) break;
  }
  return out;
}

/** The constant of reciprocal rank fusion (Cormack, Clarke & Büttcher 2009): score = Σ 1 / (k + rank). */
export const RRF_K = 60;

export interface Fused {
  id: string;
  score: number;
  lexicalRank: number | null;
  vectorRank: number | null;
}

/** Fuses rankings (ids, best first) into one, best first; ties keep the lexical order. */
export function reciprocalRankFusion(lexical: string[], vector: string[], k = RRF_K): Fused[] {
  const by = new Map<string, Fused>();
  const add = (ids: string[], field: 'lexicalRank' | 'vectorRank') =>
    ids.forEach((id, i) => {
      const f = by.get(id) ?? { id, score: 0, lexicalRank: null, vectorRank: null };
      f[field] = i + 1;
      f.score += 1 / (k + i + 1);
      by.set(id, f);
    });
  add(lexical, 'lexicalRank');
  add(vector, 'vectorRank');
  return [...by.values()].sort((a, b) => b.score - a.score || (a.lexicalRank ?? Infinity) - (b.lexicalRank ?? Infinity));
}
