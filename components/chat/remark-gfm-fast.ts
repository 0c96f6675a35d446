// GitHub-flavoured markdown for answers, as remark-gfm gives it but without the autolink-literal *syntax* extension:
// that tokenizer tests every word's first letters for `www.`, `http` and an e-mail, and on a long paragraph it is most
// of the parse (10 KB: 13 ms of 16 ms, re-run on every streamed token of the paragraph). Bare URLs, `www.` and e-mail
// addresses still become links: mdast-util-gfm's transform finds them in the text nodes after the parse, outside code
// and existing links. Tables, strikethrough, footnotes and task lists are unchanged.
// (Answers are only parsed, never written back as markdown: no remark-stringify extensions.)
import { gfmFromMarkdown } from 'mdast-util-gfm';
import { gfmFootnote } from 'micromark-extension-gfm-footnote';
import { gfmStrikethrough } from 'micromark-extension-gfm-strikethrough';
import { gfmTable } from 'micromark-extension-gfm-table';
import { gfmTaskListItem } from 'micromark-extension-gfm-task-list-item';
import type { Processor } from 'unified';

export function remarkGfmFast(this: Processor) {
  const data = this.data();
  (data.micromarkExtensions ??= []).push(gfmFootnote(), gfmStrikethrough(), gfmTable(), gfmTaskListItem());
  (data.fromMarkdownExtensions ??= []).push(gfmFromMarkdown());
}
