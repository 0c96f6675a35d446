import assert from 'node:assert/strict';
import { test } from 'node:test';
import { toHtml } from 'hast-util-to-html';
import remarkGfm from 'remark-gfm';
import remarkParse from 'remark-parse';
import remarkRehype from 'remark-rehype';
import { unified } from 'unified';
import { remarkGfmFast } from './remark-gfm-fast.ts';

async function html(md: string, gfm: typeof remarkGfm | typeof remarkGfmFast): Promise<string> {
  const processor = unified().use(remarkParse).use(gfm).use(remarkRehype);
  return toHtml((await processor.run(processor.parse(md))) as Parameters<typeof toHtml>[0]);
}

// What answers hold: bare links in every position an answer puts them, and the other GFM constructs.
const samples = [
  'See www.example.com, https://example.org/a?b=1. and http://x.test/path_(1) or mail ada@example.com.',
  'Links in emphasis: *www.example.com* and **https://example.org**; trailing: (https://example.org/x).',
  'Not links: `https://in.code`, [a titled one](https://example.org), <https://angle.example>, wwwx.com, www.',
  '```\nhttps://in.a.fence\n```\n\n> quoted https://example.org/q',
  '| a | b |\n|---|:-:|\n| https://cell.example | ~~gone~~ |\n\n- [x] done\n- [ ] todo www.todo.example',
  'A footnote[^1] and ~one~ tilde.\n\n[^1]: Its text, with https://note.example.',
  'Numbers 1.5 and a@b and http:// alone and https://example.org/trailing.dot.',
];

test('the same HTML as remark-gfm for links, tables, strikethrough, task lists and footnotes', async () => {
  for (const md of samples) assert.equal(await html(md, remarkGfmFast), await html(md, remarkGfm), md);
});

test("no autolink-literal tokenizer: no construct starts on a word's first letter (w, h) or any letter of an e-mail", () => {
  // GFM's autolink literal hooks text constructs on those codes and tries them at every word: on a long paragraph it
  // was most of the parse (npm run bench:browser measures the streaming cost). The other GFM constructs hook `~`, `[`, `|`.
  const data = unified().use(remarkParse).use(remarkGfmFast).freeze().data();
  const text = (data.micromarkExtensions ?? []).flatMap((e) => Object.keys((e as { text?: Record<number, unknown> }).text ?? {}).map(Number));
  assert.deepEqual(
    text.filter((code) => (code >= 65 && code <= 90) || (code >= 97 && code <= 122)),
    [],
  );
  const full = unified().use(remarkParse).use(remarkGfm).freeze().data();
  const fullText = (full.micromarkExtensions ?? []).flatMap((e) => Object.keys((e as { text?: Record<number, unknown> }).text ?? {}).map(Number));
  assert.ok(fullText.includes(119), "remark-gfm's own list hooks `w` (the check above would catch its return)");
});
