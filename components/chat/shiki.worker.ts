// Syntax highlighting in a worker: Shiki compiles TextMate grammars to regular expressions and tokenises on the CPU,
// which on the main thread costs 60–200 ms tasks the first time a language appears (mid-stream, too). Here it
// runs @streamdown/code itself (its incremental tokenising and caches), and the page only receives tokens.
import { code } from '@streamdown/code';
import type { HighlightRequest } from './worker-code-plugin.ts';

const post = (id: number, result: unknown) => (self as unknown as Worker).postMessage({ id, result });

self.onmessage = (e: MessageEvent<HighlightRequest>) => {
  const { id, ...options } = e.data;
  const ready = code.highlight(options as Parameters<typeof code.highlight>[0], (result) => post(id, result));
  if (ready) post(id, ready);
};
