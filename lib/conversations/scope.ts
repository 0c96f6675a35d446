// The reads and writes every operation builds on, bound to one store and one user: each statement filters by that
// user, so callers cannot forget to. Built only inside userConversations, which checks the user id first.
import type { Queryable, Store } from '../db/store.ts';
import { notFound } from './input.ts';
import { C_COLS, type ConversationRow, M_COLS, type MessageRow, owned, stamp, toConversation, toMessage } from './rows.ts';
import { pathTo } from './tree.ts';
import type { Conversation, Message } from './types.ts';

export interface UserScope {
  store: Store;
  userId: string;
  /** The user's conversation (NOT_FOUND otherwise); `lock` takes a row lock inside a transaction where the store has them. */
  getConversation(q: Queryable, id: string, lock?: boolean): Promise<Conversation>;
  /** Every message of the user's conversation, in creation order. */
  messagesOf(q: Queryable, conversationId: string): Promise<Message[]>;
  getMessage(q: Queryable, id: string): Promise<Message>;
  /** Moves the conversation's updated_at forward (never back). */
  touch(q: Queryable, conversationId: string, at?: number): Promise<void>;
  /** The root-to-leaf path to leafId (default: the latest message). */
  pathIn(q: Queryable, conversationId: string, leafId?: string): Promise<Message[]>;
  /** pathIn for a conversation already read for this user: its ownership is checked, so it is not read again. */
  pathOf(q: Queryable, conversationId: string, leafId?: string): Promise<Message[]>;
}

export function userScope(store: Store, userId: string): UserScope {
  async function getConversation(q: Queryable, id: string, lock = false): Promise<Conversation> {
    if (typeof id !== 'string' || !id) throw notFound('Conversation');
    const row = await q.get<ConversationRow>(`SELECT ${C_COLS} FROM conversations c WHERE c.id = $1 AND c.user_id = $2${lock ? store.forUpdate : ''}`, [
      id,
      userId,
    ]);
    if (!row) throw notFound('Conversation');
    return toConversation(row);
  }

  async function messagesOf(q: Queryable, conversationId: string): Promise<Message[]> {
    const rows = await q.all<MessageRow>(`SELECT ${M_COLS} FROM messages m WHERE m.conversation_id = $1 AND ${owned(2)} ORDER BY m.created_at, m.id`, [
      conversationId,
      userId,
    ]);
    return rows.map(toMessage);
  }

  async function getMessage(q: Queryable, id: string): Promise<Message> {
    if (typeof id !== 'string' || !id) throw notFound('Message');
    const row = await q.get<MessageRow>(`SELECT ${M_COLS} FROM messages m WHERE m.id = $1 AND ${owned(2)}`, [id, userId]);
    if (!row) throw notFound('Message');
    return toMessage(row);
  }

  async function touch(q: Queryable, conversationId: string, at = stamp()): Promise<void> {
    await q.run('UPDATE conversations SET updated_at = $1 WHERE id = $2 AND user_id = $3 AND updated_at < $1', [at, conversationId, userId]);
  }

  async function pathIn(q: Queryable, conversationId: string, leafId?: string): Promise<Message[]> {
    await getConversation(q, conversationId);
    return pathOf(q, conversationId, leafId);
  }

  async function pathOf(q: Queryable, conversationId: string, leafId?: string): Promise<Message[]> {
    // messagesOf filters by the user too: a caller that skipped the conversation read still sees only its own rows.
    const all = await messagesOf(q, conversationId);
    if (leafId === undefined) return all.length ? pathTo(all, all[all.length - 1].id) : [];
    if (!all.some((m) => m.id === leafId)) throw notFound('Message');
    return pathTo(all, leafId);
  }

  return { store, userId, getConversation, messagesOf, getMessage, touch, pathIn, pathOf };
}
