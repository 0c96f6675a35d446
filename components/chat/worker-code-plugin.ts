// Streamdown's code-highlighter plugin, backed by a worker (shiki.worker.ts): the same results as @streamdown/code
// without its CPU work on the main thread. Every call answers at once with a result whose text is exactly the code
// asked for: the tokens of the newest earlier version it extends (so a streaming block does not blink), the new
// lines plain; the worker's tokens replace it when they arrive. Never stale text, so a finished answer shows its
// finished code even before highlighting catches up.
import type { CodeHighlighterPlugin, HighlightOptions, HighlightResult, HighlightToken } from 'streamdown';

export interface HighlightRequest extends HighlightOptions {
  id: number;
}

// The high-contrast GitHub themes: every token colour at least 4.5:1 on the code block in its theme (WCAG AA); the
// plain ones have comments and some keywords below it.
const THEMES: [string, string] = ['github-light-high-contrast', 'github-dark-high-contrast'];
const CACHE_MAX = 300;
// Streaming versions kept to extend: a few blocks can stream at once (one answer, several fences).
const RECENT_MAX = 16;

const plainLine = (content: string): HighlightToken[] => [{ content, color: 'inherit', bgColor: 'transparent', htmlStyle: {}, offset: 0 }];

/**
 * The result for `code` built from an earlier version's result: its complete lines keep their tokens (its last line
 * may have been cut mid-token, so it is redone), every other line is plain text.
 */
export function provisionalResult(code: string, earlier?: { code: string; result: HighlightResult }): HighlightResult {
  const lines = code.split('\n');
  if (!earlier || !code.startsWith(earlier.code)) return { bg: 'transparent', fg: 'inherit', tokens: lines.map(plainLine) };
  const kept = Math.min(earlier.code.split('\n').length - 1, earlier.result.tokens.length, lines.length);
  return {
    ...earlier.result,
    tokens: [...earlier.result.tokens.slice(0, kept), ...lines.slice(kept).map(plainLine)],
  };
}

export function createWorkerCodePlugin(): CodeHighlighterPlugin {
  let worker: Worker | null = null;
  let seq = 0;
  const waiting = new Map<number, { key: string; finished: boolean; code: string; lang: string; done: (r: HighlightResult) => void }>();
  // Finished blocks by language and code; streaming versions (by language) to extend while the next one is worked on.
  const cache = new Map<string, HighlightResult>();
  const recent: { lang: string; code: string; result: HighlightResult }[] = [];

  const remember = (lang: string, code: string, result: HighlightResult) => {
    recent.push({ lang, code, result });
    if (recent.length > RECENT_MAX) recent.shift();
  };
  /** The longest remembered version in this language that `code` extends. */
  const extended = (lang: string, code: string) => {
    let best: (typeof recent)[number] | undefined;
    for (const r of recent) if (r.lang === lang && code.startsWith(r.code) && (!best || r.code.length > best.code.length)) best = r;
    return best;
  };

  const start = (): Worker => {
    if (worker) return worker;
    worker = new Worker(new URL('./shiki.worker.ts', import.meta.url), { type: 'module', name: 'shiki' });
    worker.onmessage = (e: MessageEvent<{ id: number; result: HighlightResult }>) => {
      const job = waiting.get(e.data.id);
      if (!job) return;
      waiting.delete(e.data.id);
      if (job.finished) {
        cache.set(job.key, e.data.result);
        if (cache.size > CACHE_MAX) cache.delete(cache.keys().next().value!);
      } else remember(job.lang, job.code, e.data.result);
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
      const lang = String(options.language);
      const key = `${lang}\n${options.code}`;
      const finished = !options.isIncomplete;
      const hit = finished ? cache.get(key) : undefined;
      if (hit) return hit;
      const now = provisionalResult(options.code, extended(lang, options.code));
      if (typeof Worker === 'undefined') return now;
      const id = ++seq;
      waiting.set(id, { key, finished, code: options.code, lang, done: (r) => callback?.(r) });
      const themes = options.themes.map((t) => (typeof t === 'string' ? t : (t.name ?? THEMES[0]))) as [string, string];
      start().postMessage({ id, code: options.code, language: options.language, isIncomplete: options.isIncomplete, themes } satisfies HighlightRequest);
      return now;
    },
  };
}
