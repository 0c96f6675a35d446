// A conversation that begins with a character: its snapshot is kept on the conversation (the chat's persona from
// then on, whatever happens to the character), its first message opens the chat, and the character counts one chat.
import type { Character } from './characters.ts';
import { fillMacros, saveSnapshot, snapshotOf } from './snapshot.ts';
import { countChat } from './store.ts';
import type { ConversationOps } from '../conversations/conversations.ts';
import type { Store } from '../db/store.ts';
import type { User } from '../users/users.ts';

export async function beginWithCharacter(store: Store, ops: ConversationOps, conversationId: string, user: User, c: Character): Promise<void> {
  await saveSnapshot(store, conversationId, user.id, snapshotOf(c));
  if (c.firstMessage) {
    const content = fillMacros(c.firstMessage, { char: c.name, user: user.displayName || 'User' });
    await ops.addMessage(conversationId, { parentId: null, role: 'assistant', content });
  }
  await countChat(store, c.id);
}
