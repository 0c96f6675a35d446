// Streamdown's code-highlighter plugin, backed by a worker (shiki.worker.ts): the same results as @streamdown/code
// without its CPU work on the main thread. Streamdown shows the plain code until the tokens arrive and keeps the
// previous tokens while a streaming block's next version is highlighted, so nothing blinks.
import type { CodeHighlighterPlugin, HighlightOptions, HighlightResult } from 'streamdown';

export interface HighlightRequest extends HighlightOptions {
  id: number;
}

const THEMES: [string, string] = ['github-light', 'github-dark'];
const CACHE_MAX = 300;

export function createWorkerCodePlugin(): CodeHighlighterPlugin {
  let worker: Worker | null = null;
  let seq = 0;
  const waiting = new Map<number, { key: string | null; done: (r: HighlightResult) => void }>();
  // Finished blocks only: a streaming block's result is superseded by its next version.
  const cache = new Map<string, HighlightResult>();

  const start = (): Worker => {
    if (worker) return worker;
    worker = new Worker(new URL('./shiki.worker.ts', import.meta.url), { type: 'module', name: 'shiki' });
    worker.onmessage = (e: MessageEvent<{ id: number; result: HighlightResult }>) => {
      const job = waiting.get(e.data.id);
      if (!job) return;
      waiting.delete(e.data.id);
      if (job.key) {
        cache.set(job.key, e.data.result);
        if (cache.size > CACHE_MAX) cache.delete(cache.keys().next().value!);
      }
      job.done(e.data.result);
    };
    return worker;
  };

  return {
    name: 'shiki',
    type: 'code-highlighter',
    getThemes: () => THEMES,
    // Any fence language is accepted; the worker falls back to plain text for ones Shiki does not know.
    supportsLanguage: () => true,
    getSupportedLanguages: () => [],
    highlight(options: HighlightOptions, callback?: (result: HighlightResult) => void): HighlightResult | null {
      const key = options.isIncomplete ? null : `${options.language}\n${options.code}`;
      const hit = key ? cache.get(key) : undefined;
      if (hit) return hit;
      if (typeof Worker === 'undefined') return null;
      const id = ++seq;
      waiting.set(id, { key, done: (r) => callback?.(r) });
      const themes = options.themes.map((t) => (typeof t === 'string' ? t : (t.name ?? 'github-light'))) as [string, string];
      start().postMessage({ id, code: options.code, language: options.language, isIncomplete: options.isIncomplete, themes } satisfies HighlightRequest);
      return null;
    },
  };
}
