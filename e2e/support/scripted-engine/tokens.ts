// How the scripted engine reads and counts text: the text of a message's content (a string, or the text parts of an
// array joined by "\n"), replies cut into tokens (whitespace-separated words keeping their trailing whitespace, so the
// chunks concatenate back to the reply exactly), and the word counts behind usage.prompt_tokens for chat and
// embeddings. Kept apart because the markers, the chat answer and the embeddings all count the same way.

/** Whitespace-separated words, each keeping its trailing whitespace (leading whitespace joins the first). */
export function tokenize(text: string): string[] {
  const words = text.match(/\S+\s*/g) ?? [];
  const lead = /^\s+/.exec(text)?.[0];
  if (lead && words.length) words[0] = lead + words[0];
  return words;
}

export function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter((p) => p && p.type === 'text' && typeof p.text === 'string')
    .map((p) => p.text as string)
    .join('\n');
}

export function countWords(text: string): number {
  return text.match(/\S+/g)?.length ?? 0;
}

export function promptTokens(messages: any[]): number {
  let n = 0;
  for (const m of messages) n += countWords(textOf(m?.content)) + 1;
  return n;
}
