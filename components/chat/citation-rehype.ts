// Turns the service's caret citations (`^1^`, `^1,2^`; see lib/augment/citations.ts) into
// <sup data-citation="1,2"> elements. It runs AFTER Streamdown's sanitiser, so model text cannot forge the
// attribute (a raw `<sup data-citation>` in the answer loses it to sanitising first); CitationSup renders the links.
// Code, preformatted text, math and existing links are left alone.
import type { Element, ElementContent, Root, Text } from 'hast';

const CARET = /\^(\d{1,2}(?:\s*,\s*\d{1,2})*)\^/g;
const SKIP = new Set(['code', 'pre', 'a', 'kbd', 'samp', 'script', 'style', 'svg', 'math']);

/** The text split around its citations, or null when it has none. */
export function splitCitations(value: string): ElementContent[] | null {
  CARET.lastIndex = 0;
  if (!CARET.test(value)) return null;
  CARET.lastIndex = 0;
  const out: ElementContent[] = [];
  let last = 0;
  for (let m = CARET.exec(value); m; m = CARET.exec(value)) {
    if (m.index > last) out.push({ type: 'text', value: value.slice(last, m.index) });
    const numbers = m[1]
      .split(',')
      .map((n) => Number(n.trim()))
      .filter((n) => n > 0);
    out.push({
      type: 'element',
      tagName: 'sup',
      properties: { dataCitation: numbers.join(',') },
      children: [{ type: 'text', value: numbers.join(',') }],
    });
    last = m.index + m[0].length;
  }
  if (last < value.length) out.push({ type: 'text', value: value.slice(last) });
  return out;
}

function isSkipped(el: Element): boolean {
  if (SKIP.has(el.tagName)) return true;
  const cls = el.properties?.className;
  return Array.isArray(cls) && cls.some((c) => typeof c === 'string' && c.startsWith('katex'));
}

function walk(node: Root | Element): void {
  const next: (typeof node.children)[number][] = [];
  let changed = false;
  for (const child of node.children) {
    if (child.type === 'text') {
      const parts = splitCitations((child as Text).value);
      if (parts) {
        next.push(...parts);
        changed = true;
        continue;
      }
    } else if (child.type === 'element' && !isSkipped(child)) {
      walk(child);
    }
    next.push(child);
  }
  if (changed) node.children = next as typeof node.children;
}

/** The rehype plugin (unified attacher): `rehypePlugins={[...defaults, rehypeCitations]}`. */
export function rehypeCitations() {
  return (tree: Root): void => walk(tree);
}
