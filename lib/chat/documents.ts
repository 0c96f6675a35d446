// Search results as an OpenAI-compatible tool call (`return_search_results_as_documents`), and citation rewriting
// of a finished message.
import { normaliseCitations } from '../augment/citations.ts';
import type { SearchResult } from '../augment/types.ts';
import { SEARCH_DOCUMENTS_TOOL } from '../api/wire.ts';

export function documentsToolCall(results: SearchResult[]) {
  const documents = results.map((r, i) => ({ id: String(i + 1), title: r.title, url: r.url, snippet: r.content, published_at: r.date ?? null }));
  return {
    id: 'call_web_search_documents',
    type: 'function' as const,
    function: { name: SEARCH_DOCUMENTS_TOOL, arguments: JSON.stringify({ documents }) },
  };
}

export function normaliseChoiceCitations(message: { content: string | null }, sources: number): void {
  if (message.content) message.content = normaliseCitations(message.content, sources);
}
