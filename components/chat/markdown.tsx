'use client';
// Assistant answers as streamed markdown (Streamdown): GFM tables, Shiki-highlighted code with a copy button (Shiki
// runs in a worker, so highlighting never blocks the page), KaTeX math ($…$, \(…\), \[…\] and $$…$$), caret
// citations as superscript links; ```mermaid diagrams and ```html previews in a sandboxed frame. Streamdown splits the text into blocks and memoises the finished ones, so a token re-parses only the last block; its
// sanitiser and link hardening stay on (model text is untrusted; no HTML strings are injected here).
import { memo, useMemo } from 'react';
import { Streamdown, defaultRehypePlugins, defaultRemarkPlugins, type Components } from 'streamdown';
import { math } from '@streamdown/math';
import 'katex/dist/katex.min.css';
import type { AppCitation } from '@/lib/wire.ts';
import { CitationSup } from './citation-sup.tsx';
import { CitationsContext } from './citations-context.ts';
import { rehypeCitations } from './citation-rehype.ts';
import { normaliseMathDelimiters } from './math-delimiters.ts';
import { createWorkerCodePlugin } from './worker-code-plugin.ts';
import { previewRenderers } from './preview-blocks.tsx';
import { remarkGfmFast } from './remark-gfm-fast.ts';

// Module constants: Streamdown re-renders every block when these props change identity.
// Mermaid and HTML blocks are drawn in a sandboxed frame (preview-blocks.tsx), never on this page.
const plugins = { code: createWorkerCodePlugin(), math, renderers: previewRenderers };
const rehypePlugins = [...Object.values(defaultRehypePlugins), rehypeCitations];
// Streamdown's own list with remark-gfm swapped for the same GFM minus its slowest tokenizer (remark-gfm-fast.ts).
const remarkPlugins = Object.entries(defaultRemarkPlugins).map(([name, plugin]) => (name === 'gfm' ? remarkGfmFast : plugin));
const components: Components = { sup: CitationSup };
const controls = { code: true, table: true, mermaid: false } as const;

interface Props {
  text: string;
  citations: readonly AppCitation[];
  /** Still being generated: incomplete markdown is completed for display and a caret shows. */
  live: boolean;
}

export const Markdown = memo(function Markdown({ text, citations, live }: Props) {
  const markdown = useMemo(() => normaliseMathDelimiters(text), [text]);
  return (
    <CitationsContext.Provider value={citations}>
      <Streamdown
        mode="streaming"
        parseIncompleteMarkdown
        isAnimating={live}
        caret={live ? 'block' : undefined}
        plugins={plugins}
        remarkPlugins={remarkPlugins}
        rehypePlugins={rehypePlugins}
        components={components}
        controls={controls}
        className="markdown min-w-0 space-y-3 break-words text-[15px] leading-7"
      >
        {markdown}
      </Streamdown>
    </CitationsContext.Provider>
  );
});
