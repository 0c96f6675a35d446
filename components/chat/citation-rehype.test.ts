import assert from 'node:assert/strict';
import { test } from 'node:test';
import { toHtml } from 'hast-util-to-html';
import remarkGfm from 'remark-gfm';
import remarkParse from 'remark-parse';
import remarkRehype from 'remark-rehype';
import { defaultRehypePlugins } from 'streamdown';
import { unified } from 'unified';
import { rehypeCitations, splitCitations } from './citation-rehype.ts';

// The same order as the Markdown component: Streamdown's raw → sanitize → harden, then the citations.
async function render(md: string): Promise<string> {
  const tree = await unified()
    .use(remarkParse)
    .use(remarkGfm)
    .use(remarkRehype, { allowDangerousHtml: true })
    .use(Object.values(defaultRehypePlugins))
    .use(rehypeCitations)
    .run(unified().use(remarkParse).parse(md));
  return toHtml(tree as Parameters<typeof toHtml>[0]);
}

test('caret citations become marked superscripts', async () => {
  const html = await render('Paris is the capital^1^ and large^1,2^.');
  assert.equal(html, '<p>Paris is the capital<sup data-citation="1">1</sup> and large<sup data-citation="1,2">1,2</sup>.</p>');
});

test('code, inline code and links keep their carets', async () => {
  const html = await render('`x^1^` and [a^2^](https://a.example)\n\n```\ny^3^\n```');
  assert.doesNotMatch(html, /data-citation/);
});

test('a forged data-citation in raw HTML is stripped by the sanitiser before citations are added', async () => {
  const html = await render('<sup data-citation="1" onclick="x()">9</sup> <img src=x onerror=alert(1)>');
  assert.doesNotMatch(html, /data-citation|onclick|onerror/);
});

test('splitCitations leaves plain text alone', () => {
  assert.equal(splitCitations('x^2 + y^2'), null);
  assert.equal(splitCitations('no carets'), null);
});
