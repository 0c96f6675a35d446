// The branch the user picked in each chat (its leaf message id), per browser, so a reload or a later visit opens the
// version they left on screen and an export from the history writes that same branch. Bounded: the chats visited
// longest ago are forgotten first.
const KEY = 'lagoon.chat.branch';
const MAX = 200;

type Entries = [conversationId: string, leafId: string][];

function read(): Entries {
  try {
    const v = JSON.parse(localStorage.getItem(KEY) ?? '[]');
    return Array.isArray(v) ? v.filter((e): e is [string, string] => Array.isArray(e) && typeof e[0] === 'string' && typeof e[1] === 'string') : [];
  } catch {
    return [];
  }
}

export function rememberedLeaf(conversationId: string | null): string | null {
  if (!conversationId || typeof localStorage === 'undefined') return null;
  return read().find(([c]) => c === conversationId)?.[1] ?? null;
}

export function rememberLeaf(conversationId: string, leafId: string | null): void {
  try {
    const rest = read().filter(([c]) => c !== conversationId);
    localStorage.setItem(KEY, JSON.stringify(leafId ? [...rest, [conversationId, leafId]].slice(-MAX) : rest));
  } catch {
    // Storage full or blocked: the chat opens on its newest branch after a reload, as before.
  }
}
