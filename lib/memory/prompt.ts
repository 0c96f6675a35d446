// The user's memories as the system message a chat's prompt carries: the newest enabled ones that fit the token
// budget (LAGOON_MEMORY_TOKENS), put back in the order they were saved. Tokens are estimated high (three UTF-8 bytes
// a token, as the credit hold does), so the real cost stays under the budget in any tokenizer we serve.
import type { Memory } from './memories.ts';

export const MEMORY_HEADER =
  'The user asked you to remember these facts about them in earlier chats. Use them where they help; do not bring them up otherwise.';

const tokens = (text: string): number => Math.ceil(Buffer.byteLength(text) / 3);
const line = (m: Pick<Memory, 'content'>) => `- ${m.content}`;

/** The memories that fit `budget` tokens, taken newest first from `newestFirst` and returned oldest first. */
export function pickForPrompt<M extends Pick<Memory, 'content' | 'createdAt'>>(newestFirst: M[], budget: number): M[] {
  let left = budget - tokens(MEMORY_HEADER) - 1;
  if (left <= 0) return [];
  const out: M[] = [];
  for (const m of newestFirst) {
    const cost = tokens(line(m)) + 1;
    // A long memory that does not fit leaves room for shorter, older ones.
    if (cost > left) continue;
    out.push(m);
    left -= cost;
  }
  return out.reverse();
}

/** The system message's text for the chosen memories (empty list: no message). */
export function memoryPrompt(memories: Pick<Memory, 'content'>[]): string | null {
  if (!memories.length) return null;
  return `${MEMORY_HEADER}\n${memories.map(line).join('\n')}`;
}

/** The whole message's estimated tokens (what pickForPrompt keeps under its budget). */
export const promptTokens = (memories: Pick<Memory, 'content'>[]): number => {
  const text = memoryPrompt(memories);
  return text ? tokens(text) : 0;
};
