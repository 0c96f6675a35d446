// The composer's `/` menu, as state: typing `/` at the start of an empty line-free message opens the prompt list,
// filtered by what follows the slash (title first, then text); arrows move, Enter or Tab inserts, Escape closes
// (until the slash is typed again). Inserting replaces the message with the prompt's text and selects its first
// `{{placeholder}}`, so typing fills it in.
import type { AppPrompt } from '@/lib/wire.ts';

export const MAX_SHOWN = 8;

/** What follows the slash when the text asks for the menu (a `/` first, on one line), else null. */
export function slashQuery(text: string): string | null {
  if (!text.startsWith('/') || text.includes('\n')) return null;
  return text.slice(1);
}

/** The prompts matching the query: titles that start with it, then titles and texts that contain it. */
export function filterPrompts(prompts: readonly AppPrompt[], query: string): AppPrompt[] {
  const q = query.trim().toLowerCase();
  if (!q) return prompts.slice(0, MAX_SHOWN);
  const starts: AppPrompt[] = [];
  const contains: AppPrompt[] = [];
  for (const p of prompts) {
    const t = p.title.toLowerCase();
    if (t.startsWith(q)) starts.push(p);
    else if (t.includes(q) || p.content.toLowerCase().includes(q)) contains.push(p);
  }
  return [...starts, ...contains].slice(0, MAX_SHOWN);
}

/** Where the first `{{placeholder}}` is in the text, to select it; null when there is none. */
export function firstPlaceholder(text: string): { start: number; end: number } | null {
  const m = /\{\{[^{}\n]{0,80}\}\}/.exec(text);
  return m ? { start: m.index, end: m.index + m[0].length } : null;
}
