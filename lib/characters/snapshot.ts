// What a conversation keeps of its character when it begins: enough to build the persona's system prompt, so the
// chat goes on unchanged after the character is edited, unpublished or deleted. Stored as JSON on the conversation.
import type { Queryable } from '../db/store.ts';
import type { Character } from './characters.ts';

export interface CharacterSnapshot {
  slug: string;
  name: string;
  instructions: string;
  exampleDialogue: string;
  firstMessage: string;
  modelId: string | null;
  temperature: number | null;
  webEnabled: boolean;
}

export const snapshotOf = (c: Character): CharacterSnapshot => ({
  slug: c.slug,
  name: c.name,
  instructions: c.systemPrompt,
  exampleDialogue: c.exampleDialogue,
  firstMessage: c.firstMessage,
  modelId: c.modelId,
  temperature: c.temperature,
  webEnabled: c.webEnabled,
});

/** The community's card macros: {{char}} is the character's name, {{user}} the person chatting. */
export const fillMacros = (text: string, names: { char: string; user: string }): string =>
  text.replace(/\{\{\s*char\s*\}\}/gi, names.char).replace(/\{\{\s*user\s*\}\}/gi, names.user);

/** The persona as one system prompt: the instructions, then the example dialogue as a style guide. */
export function personaPrompt(s: Pick<CharacterSnapshot, 'name' | 'instructions' | 'exampleDialogue'>, userName: string): string {
  const names = { char: s.name, user: userName || 'User' };
  const parts = [fillMacros(s.instructions, names)];
  if (s.exampleDialogue) parts.push(`Example dialogue (style only, not part of this conversation):\n${fillMacros(s.exampleDialogue, names)}`);
  return parts.filter(Boolean).join('\n\n');
}

export async function saveSnapshot(q: Queryable, conversationId: string, userId: string, s: CharacterSnapshot): Promise<void> {
  await q.run('UPDATE conversations SET character_snapshot = $1 WHERE id = $2 AND user_id = $3', [JSON.stringify(s), conversationId, userId]);
}

/** The snapshot of the user's conversation, or null (no character, or a chat from before snapshots). */
export async function readSnapshot(q: Queryable, conversationId: string, userId: string): Promise<CharacterSnapshot | null> {
  const row = await q.get<{ character_snapshot: string | null }>('SELECT character_snapshot FROM conversations WHERE id = $1 AND user_id = $2', [
    conversationId,
    userId,
  ]);
  if (!row?.character_snapshot) return null;
  try {
    return JSON.parse(row.character_snapshot) as CharacterSnapshot;
  } catch {
    return null;
  }
}
