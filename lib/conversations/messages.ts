// The message operations of userConversations: adding, reading and updating messages, and walking their branches.
// Every statement filters by the scope's user: messages are reached only through a conversation the user owns.
import { randomUUID } from 'node:crypto';
import { ApiError } from '../api/errors.ts';
import { z } from 'zod';
import type { Param, Queryable } from '../db/store.ts';
import { cleanTitle, notFound, parse } from './input.ts';
import { C_COLS_BARE, type ConversationRow, M_COLS_BARE, type MessageRow, owned, stamp, toConversation, toMessage } from './rows.ts';
import type { UserScope } from './scope.ts';
import { latestUnder } from './tree.ts';
import { addMessageSchema, type ConversationOps, type Message, type UpdateMessageOptions, type UpdateMessagePatch, updateMessageSchema } from './types.ts';

export type MessageOps = Pick<ConversationOps, 'addMessage' | 'addTurn' | 'message' | 'updateMessage' | 'path' | 'siblings' | 'branchLeaf'>;

const modelIdSchema = z.string().min(1).max(200).nullable();
const answerSchema = addMessageSchema.omit({ parentId: true });

export function messageOps(scope: UserScope): MessageOps {
  const { store, userId, messagesOf, getMessage, touch, pathIn } = scope;

  /**
   * Opens a write of messages to the user's conversation inside a transaction: NOT_FOUND unless it is theirs, 400
   * unless parentId is one of its messages, and a stamp after every message it has, so creation order holds across
   * instances' clocks. Where the store has row locks (PostgreSQL), the conversation's row is locked by a statement of
   * its own first, so the stamp read after it sees every turn committed before; SQLite's transaction already holds
   * the one write lock, so a single statement does all three.
   */
  async function openWrite(q: Queryable, conversationId: string, parentId: string | null): Promise<number> {
    if (typeof conversationId !== 'string' || !conversationId) throw notFound('Conversation');
    if (store.forUpdate) {
      const locked = await q.get(`SELECT c.id FROM conversations c WHERE c.id = $1 AND c.user_id = $2${store.forUpdate}`, [conversationId, userId]);
      if (!locked) throw notFound('Conversation');
    }
    const params: Param[] = [conversationId, userId];
    const parentCheck = parentId === null ? '' : `, (SELECT 1 FROM messages p WHERE p.id = $${params.push(parentId)} AND p.conversation_id = c.id) AS parent`;
    const row = await q.get<{ at: number | string | null; parent?: number | null }>(
      `SELECT (SELECT MAX(m.created_at) FROM messages m WHERE m.conversation_id = c.id) AS at${parentCheck} FROM conversations c WHERE c.id = $1 AND c.user_id = $2`,
      params,
    );
    if (!row) throw notFound('Conversation');
    if (parentId !== null && row.parent == null) throw new ApiError('INVALID_REQUEST', 'parentId is not a message of this conversation', { param: 'parentId' });
    return stamp(row.at == null ? 0 : Number(row.at) + 1);
  }

  async function insert(q: Queryable, conversationId: string, v: z.output<typeof addMessageSchema>, at: number): Promise<Message> {
    const m: Message = {
      id: randomUUID(),
      conversationId,
      parentId: v.parentId,
      role: v.role,
      content: v.content,
      reasoning: v.reasoning ?? null,
      attachments: v.attachments ?? [],
      citations: v.citations ?? [],
      modelId: v.modelId ?? null,
      status: v.status ?? 'complete',
      usage: v.usage ?? null,
      error: v.error ?? null,
      memories: v.memories ?? [],
      createdAt: at,
      updatedAt: at,
    };
    // INSERT … SELECT from the user's own conversation row: nothing is written unless the user owns it.
    const n = await q.run(
      `INSERT INTO messages (id, conversation_id, parent_id, role, content, reasoning, attachments, citations, model_id, status, usage, error, memories, created_at, updated_at)
       SELECT CAST($1 AS TEXT), c.id, CAST($2 AS TEXT), CAST($3 AS TEXT), CAST($4 AS TEXT), CAST($5 AS TEXT), CAST($6 AS TEXT),
              CAST($7 AS TEXT), CAST($8 AS TEXT), CAST($9 AS TEXT), CAST($10 AS TEXT), CAST($11 AS TEXT), CAST($15 AS TEXT), CAST($12 AS BIGINT), CAST($12 AS BIGINT)
       FROM conversations c WHERE c.id = $13 AND c.user_id = $14`,
      [
        m.id,
        m.parentId,
        m.role,
        m.content,
        m.reasoning,
        JSON.stringify(m.attachments),
        JSON.stringify(m.citations),
        m.modelId,
        m.status,
        m.usage === null ? null : JSON.stringify(m.usage),
        m.error === null ? null : JSON.stringify(m.error),
        at,
        conversationId,
        userId,
        m.memories.length ? JSON.stringify(m.memories) : null,
      ],
    );
    if (n === 0) throw notFound('Conversation');
    return m;
  }

  return {
    async addMessage(conversationId, input) {
      const v = parse(addMessageSchema, input);
      return store.tx(async (q) => {
        const m = await insert(q, conversationId, v, await openWrite(q, conversationId, v.parentId));
        await touch(q, conversationId, m.createdAt);
        return m;
      });
    },

    async addTurn(conversationId, turn) {
      const u = parse(addMessageSchema, turn.user);
      const a = parse(answerSchema, turn.assistant);
      const title = turn.title === undefined ? undefined : cleanTitle(turn.title);
      const modelId = turn.modelId === undefined ? undefined : parse(modelIdSchema, turn.modelId);
      // One transaction where addMessage twice, rename and setModel took four: a turn is the app's commonest write.
      return store.tx(async (q) => {
        const user = await insert(q, conversationId, u, await openWrite(q, conversationId, u.parentId));
        const assistant = await insert(q, conversationId, { ...a, parentId: user.id }, stamp(user.createdAt + 1));
        // The conversation comes back from its own update: moved to the answer (never back), or, as rename and
        // setModel do, to now with its new title or model.
        const params: Param[] = [title === undefined && modelId === undefined ? assistant.createdAt : stamp(), conversationId, userId];
        const sets = [title === undefined && modelId === undefined ? 'updated_at = CASE WHEN updated_at < $1 THEN $1 ELSE updated_at END' : 'updated_at = $1'];
        if (title !== undefined) sets.push(`title = $${params.push(title)}`);
        if (modelId !== undefined) sets.push(`model_id = $${params.push(modelId)}`);
        const row = await q.get<ConversationRow>(`UPDATE conversations SET ${sets.join(', ')} WHERE id = $2 AND user_id = $3 RETURNING ${C_COLS_BARE}`, params);
        if (!row) throw notFound('Conversation');
        return { user, assistant, conversation: toConversation(row) };
      });
    },

    async message(id) {
      return getMessage(store, id);
    },

    // Overloads on an object literal: the implementation's signature covers both.
    updateMessage: (async (id: string, patch: UpdateMessagePatch, opts: UpdateMessageOptions = {}) => {
      const p = parse(updateMessageSchema, patch);
      const sets: string[] = [];
      const params: Param[] = [];
      const set = (col: string, value: Param) => {
        params.push(value);
        sets.push(`${col} = $${params.length}`);
      };
      if (p.content !== undefined) set('content', p.content);
      if (p.reasoning !== undefined) set('reasoning', p.reasoning);
      if (p.status !== undefined) set('status', p.status);
      if (p.usage !== undefined) set('usage', p.usage === null ? null : JSON.stringify(p.usage));
      if (p.citations !== undefined) set('citations', JSON.stringify(p.citations));
      if (p.error !== undefined) set('error', p.error === null ? null : JSON.stringify(p.error));
      if (p.modelId !== undefined) set('model_id', p.modelId);
      if (p.toolSteps !== undefined) set('tool_steps', p.toolSteps.length ? JSON.stringify(p.toolSteps) : null);
      set('updated_at', stamp());
      params.push(id, userId);
      let where = `id = $${params.length - 1} AND role = 'assistant' AND ${owned(params.length, 'messages')}`;
      if (opts.ifStatus !== undefined) {
        params.push(opts.ifStatus);
        where += ` AND status = $${params.length}`;
      }
      // The row comes back from the UPDATE itself; only an update that changed nothing reads the row, to say why.
      const update = async (q: Queryable) => {
        const row = await q.get<MessageRow>(`UPDATE messages SET ${sets.join(', ')} WHERE ${where} RETURNING ${M_COLS_BARE}`, params);
        if (!row) {
          const existing = await getMessage(q, id);
          if (existing.role !== 'assistant') throw new ApiError('INVALID_REQUEST', 'only assistant messages can be updated', { param: 'id' });
          if (opts.ifStatus !== undefined) return undefined;
          throw notFound('Message');
        }
        if (!opts.quiet) await touch(q, row.conversation_id);
        return toMessage(row);
      };
      // A quiet update (an answer's progress) is one statement: it needs no transaction of its own.
      return opts.quiet ? update(store) : store.tx(update);
    }) as ConversationOps['updateMessage'],

    async path(conversationId, leafId) {
      return pathIn(store, conversationId, leafId);
    },

    async siblings(messageId) {
      const m = await getMessage(store, messageId);
      const rows = await store.all<{ id: string }>(
        `SELECT m.id FROM messages m WHERE m.conversation_id = $1 AND ${owned(2)} AND ${m.parentId === null ? 'm.parent_id IS NULL' : 'm.parent_id = $3'}
         ORDER BY m.created_at, m.id`,
        m.parentId === null ? [m.conversationId, userId] : [m.conversationId, userId, m.parentId],
      );
      const ids = rows.map((r) => r.id);
      return { ids, index: ids.indexOf(messageId) };
    },

    async branchLeaf(messageId) {
      const m = await getMessage(store, messageId);
      return latestUnder(await messagesOf(store, m.conversationId), m.id);
    },
  };
}
