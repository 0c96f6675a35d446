// What a chat turn is given: the user's enabled memories within the budget, unless the chat's switch is off. The
// answer keeps this list (messages.memories), so it can show what it was told even after a memory changes.
import type { Store } from '../db/store.ts';
import { userMemories } from './memories.ts';
import { pickForPrompt } from './prompt.ts';

export interface ChatMemory {
  id: string;
  content: string;
}

export async function memoriesForChat(store: Store, userId: string, chat: { settings: { memory?: boolean } }, budget: number): Promise<ChatMemory[]> {
  if (chat.settings.memory === false || budget <= 0) return [];
  const chosen = pickForPrompt(await userMemories(store, userId).enabled(), budget);
  return chosen.map((m) => ({ id: m.id, content: m.content }));
}
