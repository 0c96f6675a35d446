// Browser-app conversations and their message trees, stored per user. Every operation is reached through
// userConversations(store, userId) and every statement filters by that user: messages only through a conversation
// the user owns. Anything missing for this user is NOT_FOUND, whether or not it exists for someone else.
// This entry point holds the conversation-level operations and exports the module's whole surface; the message
// operations live in messages.ts, search in search.ts, the shapes and schemas in types.ts.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { ApiError } from '../api/errors.ts';
import type { Param, Store } from '../db/store.ts';
import { cleanTitle, clampLimit, decodeCursor, encodeCursor, notFound, parse } from './input.ts';
import { messageOps } from './messages.ts';
import { C_COLS, type ConversationRow, owned, stamp, toConversation } from './rows.ts';
import { userScope } from './scope.ts';
import { organiseOps } from './organise.ts';
import { searchOps } from './search.ts';
import { DEFAULT_TITLE } from './text.ts';
import { chatSettingsSchema, type Conversation, type ConversationOps, createSchema, settingsPatchSchema } from './types.ts';

export { autoTitle } from './text.ts';
export { exportJson, exportMarkdown } from './export.ts';
export { chatSettingsSchema } from './types.ts';
export type {
  AddMessageInput,
  AddTurnInput,
  Attachment,
  ChatSettings,
  ChatSettingsPatch,
  Citation,
  Conversation,
  ConversationOps,
  ConversationWithMessages,
  CreateConversationInput,
  ListFilter,
  OrganisePatch,
  Message,
  MessageError,
  MessageRole,
  MessageStatus,
  SearchHit,
  UsedMemory,
  ToolStep,
  UpdateMessageOptions,
  UpdateMessagePatch,
  Usage,
} from './types.ts';

export function userConversations(store: Store, userId: string): ConversationOps {
  if (typeof userId !== 'string' || !userId) throw new TypeError('userConversations needs a user id');
  const scope = userScope(store, userId);
  const { getConversation, messagesOf, pathOf } = scope;

  return {
    async create(input = {}) {
      const v = parse(createSchema, input);
      const title = v.title === undefined ? DEFAULT_TITLE : cleanTitle(v.title);
      const at = stamp();
      const c: Conversation = {
        id: randomUUID(),
        title,
        modelId: v.modelId ?? null,
        characterSlug: v.characterSlug ?? null,
        settings: v.settings ?? {},
        createdAt: at,
        updatedAt: at,
        folderId: null,
        pinnedAt: null,
        archivedAt: null,
      };
      await store.run(
        'INSERT INTO conversations (id, user_id, title, model_id, character_slug, settings, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)',
        [c.id, userId, c.title, c.modelId, c.characterSlug, JSON.stringify(c.settings), at, at],
      );
      return c;
    },

    async conversation(id) {
      return getConversation(store, id);
    },

    async get(id) {
      const c = await getConversation(store, id);
      return { ...c, messages: await messagesOf(store, id) };
    },

    async withPath(id, leafId) {
      // The conversation is read once (pathIn would read it again to check it is the user's).
      const c = await getConversation(store, id);
      return { ...c, messages: await pathOf(store, id, leafId) };
    },

    async list(opts = {}) {
      const limit = clampLimit(opts.limit, 50, 200);
      const params: Param[] = [userId];
      let where = 'c.user_id = $1';
      if (opts.cursor) {
        const [at, id] = decodeCursor(opts.cursor);
        params.push(at, id);
        where += ' AND (c.updated_at < $2 OR (c.updated_at = $2 AND c.id < $3))';
      }
      where += opts.archived ? ' AND c.archived_at IS NOT NULL' : ' AND c.archived_at IS NULL';
      if (opts.pinned !== undefined) where += opts.pinned ? ' AND c.pinned_at IS NOT NULL' : ' AND c.pinned_at IS NULL';
      if (opts.folder === null) where += ' AND c.folder_id IS NULL';
      else if (opts.folder !== undefined) {
        params.push(opts.folder);
        where += ` AND c.folder_id = $${params.length}`;
      }
      params.push(limit + 1);
      const rows = await store.all<ConversationRow>(
        `SELECT ${C_COLS} FROM conversations c WHERE ${where} ORDER BY c.updated_at DESC, c.id DESC LIMIT $${params.length}`,
        params,
      );
      const items = rows.slice(0, limit).map(toConversation);
      return { items, nextCursor: rows.length > limit ? encodeCursor(items[items.length - 1]) : null };
    },

    async rename(id, title) {
      if (typeof title !== 'string') throw new ApiError('INVALID_REQUEST', 'title must be a string', { param: 'title' });
      const clean = cleanTitle(title);
      const at = stamp();
      const n = await store.run('UPDATE conversations SET title = $1, updated_at = $2 WHERE id = $3 AND user_id = $4', [clean, at, id, userId]);
      if (n === 0) throw notFound('Conversation');
      return getConversation(store, id);
    },

    async setModel(id, modelId) {
      const v = parse(z.string().min(1).max(200).nullable(), modelId);
      const at = stamp();
      const n = await store.run('UPDATE conversations SET model_id = $1, updated_at = $2 WHERE id = $3 AND user_id = $4', [v, at, id, userId]);
      if (n === 0) throw notFound('Conversation');
      return getConversation(store, id);
    },

    async remove(id) {
      await store.tx(async (q) => {
        await getConversation(q, id, true);
        await q.run(`DELETE FROM messages WHERE conversation_id = $1 AND ${owned(2, 'messages')}`, [id, userId]);
        // Its share links go with it, snapshots and all (shares.ts).
        await q.run('DELETE FROM shares WHERE conversation_id = $1 AND user_id = $2', [id, userId]);
        const n = await q.run('DELETE FROM conversations WHERE id = $1 AND user_id = $2', [id, userId]);
        if (n === 0) throw notFound('Conversation');
      });
    },

    async updateSettings(id, patch) {
      const p = parse(settingsPatchSchema, patch);
      return store.tx(async (q) => {
        const c = await getConversation(q, id, true);
        const next: Record<string, unknown> = { ...c.settings };
        for (const [k, v] of Object.entries(p)) {
          if (v === null) delete next[k];
          else if (v !== undefined) next[k] = v;
        }
        const settings = parse(chatSettingsSchema, next);
        const at = stamp(c.updatedAt + 1);
        await q.run('UPDATE conversations SET settings = $1, updated_at = $2 WHERE id = $3 AND user_id = $4', [JSON.stringify(settings), at, id, userId]);
        return { ...c, settings, updatedAt: at };
      });
    },

    ...messageOps(scope),
    ...searchOps(scope),
    ...organiseOps(scope),
  };
}
