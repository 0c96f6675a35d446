// Shows `text` with every occurrence of the search query marked. Built from text nodes only, never HTML: titles and
// snippets come from user and model text.
import { useMemo } from 'react';

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export function HighlightMatch({ text, query }: { text: string; query: string }) {
  const parts = useMemo(() => {
    const q = query.trim();
    if (!q) return [text];
    // The whole query first (what the server matched); failing that, its words.
    if (text.toLowerCase().includes(q.toLowerCase())) return text.split(new RegExp(`(${escapeRegExp(q)})`, 'gi'));
    const words = q
      .split(/\s+/)
      .filter((w) => w.length > 1)
      .map(escapeRegExp);
    return words.length ? text.split(new RegExp(`(${words.join('|')})`, 'gi')) : [text];
  }, [text, query]);
  // split() with one capturing group puts the matches at the odd indexes.
  return <>{parts.map((p, i) => (i % 2 ? <mark key={i}>{p}</mark> : p))}</>;
}
