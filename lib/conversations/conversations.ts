// Browser-app conversations and their message trees, stored per user. Every operation is reached through
// userConversations(store, userId) and every statement filters by that user: messages only through a conversation
// the user owns. Anything missing for this user is NOT_FOUND, whether or not it exists for someone else.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { ApiError } from '../api/errors.ts';
import type { Param, Queryable, Store } from '../db/store.ts';
import { cleanLine, DEFAULT_TITLE, escapeLike, snippet, TITLE_MAX } from './text.ts';

export { autoTitle } from './text.ts';
export { exportJson, exportMarkdown } from './export.ts';

// ---- types ----

export const chatSettingsSchema = z.strictObject({
  systemPrompt: z.string().max(20_000).optional(),
  temperature: z.number().min(0).max(2).optional(),
  webSearch: z.enum(['off', 'on', 'auto']).optional(),
  citations: z.boolean().optional(),
  includeServiceSystemPrompt: z.boolean().optional(),
});
export type ChatSettings = z.infer<typeof chatSettingsSchema>;

/** A settings patch: a value sets the key, `null` removes it, an absent key is left as it is. */
const settingsPatchSchema = z.strictObject({
  systemPrompt: z.string().max(20_000).nullable().optional(),
  temperature: z.number().min(0).max(2).nullable().optional(),
  webSearch: z.enum(['off', 'on', 'auto']).nullable().optional(),
  citations: z.boolean().nullable().optional(),
  includeServiceSystemPrompt: z.boolean().nullable().optional(),
});
export type ChatSettingsPatch = z.infer<typeof settingsPatchSchema>;

export type MessageRole = 'user' | 'assistant' | 'system';
export type MessageStatus = 'complete' | 'streaming' | 'stopped' | 'error';

const citationSchema = z.looseObject({
  url: z.string().max(4096),
  title: z.string().max(1000).optional(),
  date: z.string().max(100).nullable().optional(),
});
export type Citation = z.infer<typeof citationSchema>;
const attachmentSchema = z.record(z.string(), z.unknown());
export type Attachment = z.infer<typeof attachmentSchema>;
const usageSchema = z.record(z.string(), z.unknown());
export type Usage = z.infer<typeof usageSchema>;
/** Why a turn failed, kept on the message so the chat can show it after a reload. */
const messageErrorSchema = z.strictObject({
  code: z.string().min(1).max(100),
  status: z.number().int().min(0).max(999),
  message: z.string().max(2000),
  retryAfter: z.number().min(0).max(86_400 * 7).optional(),
});
export type MessageError = z.infer<typeof messageErrorSchema>;

export interface Conversation {
  id: string;
  title: string;
  modelId: string | null;
  characterSlug: string | null;
  settings: ChatSettings;
  createdAt: number;
  updatedAt: number;
}

export interface Message {
  id: string;
  conversationId: string;
  parentId: string | null;
  role: MessageRole;
  content: string;
  reasoning: string | null;
  attachments: Attachment[];
  citations: Citation[];
  modelId: string | null;
  status: MessageStatus;
  usage: Usage | null;
  error: MessageError | null;
  createdAt: number;
  /** When the row was last written (a streaming answer's heartbeat); null for rows from before migration 5. */
  updatedAt: number | null;
}

/** A conversation with messages: every message (get) or one root-to-leaf path (withPath). */
export interface ConversationWithMessages extends Conversation {
  messages: Message[];
}

export interface SearchHit {
  conversation: Conversation;
  /** About 120 characters around the first match: in the earliest matching message, else in the title. */
  snippet: string;
  /** Where the snippet came from: the message that matched first, or null for a title match. */
  messageId: string | null;
}

const MAX_CONTENT = 2_000_000;
const idSchema = z.string().min(1).max(200);

const createSchema = z.strictObject({
  title: z.string().max(10_000).optional(),
  modelId: z.string().min(1).max(200).nullable().optional(),
  characterSlug: z.string().min(1).max(200).nullable().optional(),
  settings: chatSettingsSchema.optional(),
});
export type CreateConversationInput = z.input<typeof createSchema>;

const addMessageSchema = z.strictObject({
  parentId: idSchema.nullable(),
  role: z.enum(['user', 'assistant', 'system']),
  content: z.string().max(MAX_CONTENT),
  reasoning: z.string().max(MAX_CONTENT).nullable().optional(),
  attachments: z.array(attachmentSchema).max(100).optional(),
  citations: z.array(citationSchema).max(500).optional(),
  modelId: z.string().min(1).max(200).nullable().optional(),
  status: z.enum(['complete', 'streaming', 'stopped', 'error']).optional(),
  usage: usageSchema.nullable().optional(),
  error: messageErrorSchema.nullable().optional(),
});
export type AddMessageInput = z.input<typeof addMessageSchema>;

const updateMessageSchema = z
  .strictObject({
    content: z.string().max(MAX_CONTENT).optional(),
    reasoning: z.string().max(MAX_CONTENT).nullable().optional(),
    status: z.enum(['complete', 'streaming', 'stopped', 'error']).optional(),
    usage: usageSchema.nullable().optional(),
    citations: z.array(citationSchema).max(500).optional(),
    error: messageErrorSchema.nullable().optional(),
    modelId: z.string().min(1).max(200).nullable().optional(),
  })
  .refine((p) => Object.values(p).some((v) => v !== undefined), { message: 'nothing to update' });
export type UpdateMessagePatch = z.input<typeof updateMessageSchema>;

export interface UpdateMessageOptions {
  /**
   * Write only while the row still has this status; otherwise nothing is written and `undefined` comes back. Lets a
   * generation and a reader that declares it interrupted race without either overwriting the other's final state.
   */
  ifStatus?: MessageStatus;
  /** Leave the conversation's updated_at alone (periodic progress writes must not reorder the sidebar each second). */
  quiet?: boolean;
}

// ---- helpers ----

function parse<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const r = schema.safeParse(value);
  if (!r.success) {
    throw new ApiError('INVALID_REQUEST', undefined, {
      issues: r.error.issues.map((i) => ({ path: i.path.map(String).join('.'), message: i.message })),
    });
  }
  return r.data;
}

function cleanTitle(raw: string): string {
  const t = cleanLine(raw);
  if (t.length < 1 || t.length > TITLE_MAX) throw new ApiError('INVALID_REQUEST', `title must be 1-${TITLE_MAX} characters`, { param: 'title' });
  return t;
}

const notFound = (what: 'Conversation' | 'Message') => new ApiError('NOT_FOUND', `${what} not found`);

let lastStamp = 0;
/** Milliseconds, strictly increasing within this process, so creation order survives same-millisecond writes. */
function stamp(atLeast = 0): number {
  lastStamp = Math.max(Date.now(), lastStamp + 1, atLeast);
  return lastStamp;
}

function json<T>(text: unknown, fallback: T): T {
  if (typeof text !== 'string' || !text) return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

interface ConversationRow {
  id: string;
  title: string;
  model_id: string | null;
  character_slug: string | null;
  settings: string;
  created_at: number | string;
  updated_at: number | string;
}
interface MessageRow {
  id: string;
  conversation_id: string;
  parent_id: string | null;
  role: string;
  content: string;
  reasoning: string | null;
  attachments: string;
  citations: string;
  model_id: string | null;
  status: string;
  usage: string | null;
  error: string | null;
  created_at: number | string;
  updated_at: number | string | null;
}

const C_COLS = 'c.id, c.title, c.model_id, c.character_slug, c.settings, c.created_at, c.updated_at';
const M_COLS =
  'm.id, m.conversation_id, m.parent_id, m.role, m.content, m.reasoning, m.attachments, m.citations, m.model_id, m.status, m.usage, m.error, m.created_at, m.updated_at';
/** Restricts `m` to messages of conversations owned by the user in parameter $N. */
const owned = (n: number) => `m.conversation_id IN (SELECT id FROM conversations WHERE user_id = $${n})`;

const toConversation = (r: ConversationRow): Conversation => ({
  id: r.id,
  title: r.title,
  modelId: r.model_id,
  characterSlug: r.character_slug,
  settings: json<ChatSettings>(r.settings, {}),
  createdAt: Number(r.created_at),
  updatedAt: Number(r.updated_at),
});

const toMessage = (r: MessageRow): Message => ({
  id: r.id,
  conversationId: r.conversation_id,
  parentId: r.parent_id,
  role: r.role as MessageRole,
  content: r.content,
  reasoning: r.reasoning,
  attachments: json<Attachment[]>(r.attachments, []),
  citations: json<Citation[]>(r.citations, []),
  modelId: r.model_id,
  status: r.status as MessageStatus,
  usage: json<Usage | null>(r.usage, null),
  error: json<MessageError | null>(r.error, null),
  createdAt: Number(r.created_at),
  updatedAt: r.updated_at == null ? null : Number(r.updated_at),
});

/** The path from the root to `leafId`, given every message of the conversation in creation order. */
function pathTo(messages: Message[], leafId: string): Message[] {
  const byId = new Map(messages.map((m) => [m.id, m]));
  const out: Message[] = [];
  let cur = byId.get(leafId);
  while (cur && out.length <= messages.length) {
    out.push(cur);
    cur = cur.parentId === null ? undefined : byId.get(cur.parentId);
  }
  return out.reverse();
}

/** The latest-created message under `rootId` (itself included), which is always a leaf: children follow parents. */
function latestUnder(messages: Message[], rootId: string): Message {
  const children = new Map<string, Message[]>();
  for (const m of messages) {
    if (m.parentId === null) continue;
    const list = children.get(m.parentId);
    if (list) list.push(m);
    else children.set(m.parentId, [m]);
  }
  const root = messages.find((m) => m.id === rootId) as Message;
  let best = root;
  const stack = [root];
  while (stack.length) {
    const m = stack.pop() as Message;
    if (m.createdAt > best.createdAt || (m.createdAt === best.createdAt && m.id > best.id)) best = m;
    for (const c of children.get(m.id) ?? []) stack.push(c);
  }
  return best;
}

function encodeCursor(c: Conversation): string {
  return Buffer.from(JSON.stringify([c.updatedAt, c.id])).toString('base64url');
}
function decodeCursor(cursor: string): [number, string] {
  const bad = () => new ApiError('INVALID_REQUEST', 'invalid cursor', { param: 'cursor' });
  let v: unknown;
  try {
    v = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw bad();
  }
  if (!Array.isArray(v) || v.length !== 2 || !Number.isSafeInteger(v[0]) || typeof v[1] !== 'string') throw bad();
  return [v[0] as number, v[1] as string];
}

function clampLimit(limit: unknown, fallback: number, max: number): number {
  if (limit === undefined) return fallback;
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > max) {
    throw new ApiError('INVALID_REQUEST', `limit must be an integer from 1 to ${max}`, { param: 'limit' });
  }
  return limit;
}

// ---- operations ----

export interface ConversationOps {
  create(input?: CreateConversationInput): Promise<Conversation>;
  /** The conversation alone (no messages). */
  conversation(id: string): Promise<Conversation>;
  /** The conversation with every message (all branches), in creation order. */
  get(id: string): Promise<ConversationWithMessages>;
  /** The conversation with only the messages on the path to leafId (default: the latest leaf) — for export. */
  withPath(id: string, leafId?: string): Promise<ConversationWithMessages>;
  list(opts?: { limit?: number; cursor?: string | null }): Promise<{ items: Conversation[]; nextCursor: string | null }>;
  rename(id: string, title: string): Promise<Conversation>;
  /** The model new turns use (null: the default, or the character's model). */
  setModel(id: string, modelId: string | null): Promise<Conversation>;
  remove(id: string): Promise<void>;
  updateSettings(id: string, patch: ChatSettingsPatch): Promise<Conversation>;
  addMessage(conversationId: string, input: AddMessageInput): Promise<Message>;
  /** One message of one of the user's conversations (NOT_FOUND otherwise). */
  message(id: string): Promise<Message>;
  updateMessage(id: string, patch: UpdateMessagePatch): Promise<Message>;
  updateMessage(id: string, patch: UpdateMessagePatch, opts: UpdateMessageOptions): Promise<Message | undefined>;
  path(conversationId: string, leafId?: string): Promise<Message[]>;
  siblings(messageId: string): Promise<{ ids: string[]; index: number }>;
  branchLeaf(messageId: string): Promise<Message>;
  search(query: string, opts?: { limit?: number }): Promise<SearchHit[]>;
}

export function userConversations(store: Store, userId: string): ConversationOps {
  if (typeof userId !== 'string' || !userId) throw new TypeError('userConversations needs a user id');

  async function getConversation(q: Queryable, id: string, lock = false): Promise<Conversation> {
    if (typeof id !== 'string' || !id) throw notFound('Conversation');
    const row = await q.get<ConversationRow>(
      `SELECT ${C_COLS} FROM conversations c WHERE c.id = $1 AND c.user_id = $2${lock ? store.forUpdate : ''}`,
      [id, userId],
    );
    if (!row) throw notFound('Conversation');
    return toConversation(row);
  }

  async function messagesOf(q: Queryable, conversationId: string): Promise<Message[]> {
    const rows = await q.all<MessageRow>(
      `SELECT ${M_COLS} FROM messages m WHERE m.conversation_id = $1 AND ${owned(2)} ORDER BY m.created_at, m.id`,
      [conversationId, userId],
    );
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
    const all = await messagesOf(q, conversationId);
    if (leafId === undefined) return all.length ? pathTo(all, all[all.length - 1].id) : [];
    if (!all.some((m) => m.id === leafId)) throw notFound('Message');
    return pathTo(all, leafId);
  }

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
      const c = await getConversation(store, id);
      return { ...c, messages: await pathIn(store, id, leafId) };
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
        await q.run(`DELETE FROM messages WHERE conversation_id = $1 AND conversation_id IN (SELECT id FROM conversations WHERE user_id = $2)`, [id, userId]);
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

    async addMessage(conversationId, input) {
      const v = parse(addMessageSchema, input);
      return store.tx(async (q) => {
        await getConversation(q, conversationId, true);
        if (v.parentId !== null) {
          const parent = await q.get(`SELECT m.id FROM messages m WHERE m.id = $1 AND m.conversation_id = $2 AND ${owned(3)}`, [
            v.parentId,
            conversationId,
            userId,
          ]);
          if (!parent) throw new ApiError('INVALID_REQUEST', 'parentId is not a message of this conversation', { param: 'parentId' });
        }
        const last = await q.get<{ at: number | string | null }>(
          `SELECT MAX(m.created_at) AS at FROM messages m WHERE m.conversation_id = $1 AND ${owned(2)}`,
          [conversationId, userId],
        );
        const at = stamp(last?.at == null ? 0 : Number(last.at) + 1);
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
          createdAt: at,
          updatedAt: at,
        };
        // INSERT … SELECT from the user's own conversation row: nothing is written unless the user owns it.
        const n = await q.run(
          `INSERT INTO messages (id, conversation_id, parent_id, role, content, reasoning, attachments, citations, model_id, status, usage, error, created_at, updated_at)
           SELECT CAST($1 AS TEXT), c.id, CAST($2 AS TEXT), CAST($3 AS TEXT), CAST($4 AS TEXT), CAST($5 AS TEXT), CAST($6 AS TEXT),
                  CAST($7 AS TEXT), CAST($8 AS TEXT), CAST($9 AS TEXT), CAST($10 AS TEXT), CAST($11 AS TEXT), CAST($12 AS BIGINT), CAST($12 AS BIGINT)
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
          ],
        );
        if (n === 0) throw notFound('Conversation');
        await touch(q, conversationId, at);
        return m;
      });
    },

    async message(id) {
      return getMessage(store, id);
    },

    // Overloads on an object literal: the implementation's signature covers both.
    updateMessage: (async (id: string, patch: UpdateMessagePatch, opts: UpdateMessageOptions = {}) => {
      const p = parse(updateMessageSchema, patch);
      return store.tx(async (q) => {
        const existing = await getMessage(q, id);
        if (existing.role !== 'assistant') throw new ApiError('INVALID_REQUEST', 'only assistant messages can be updated', { param: 'id' });
        if (opts.ifStatus !== undefined && existing.status !== opts.ifStatus) return undefined;
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
        set('updated_at', stamp());
        params.push(id, userId);
        let where = `id = $${params.length - 1} AND role = 'assistant' AND conversation_id IN (SELECT id FROM conversations WHERE user_id = $${params.length})`;
        if (opts.ifStatus !== undefined) {
          params.push(opts.ifStatus);
          where += ` AND status = $${params.length}`;
        }
        const n = await q.run(`UPDATE messages SET ${sets.join(', ')} WHERE ${where}`, params);
        if (n === 0) {
          if (opts.ifStatus !== undefined) return undefined;
          throw notFound('Message');
        }
        if (!opts.quiet) await touch(q, existing.conversationId);
        return getMessage(q, id);
      });
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

    async search(query, opts = {}) {
      if (typeof query !== 'string') throw new ApiError('INVALID_REQUEST', 'query must be a string', { param: 'query' });
      const needle = cleanLine(query);
      if (!needle || needle.length > 200) throw new ApiError('INVALID_REQUEST', 'query must be 1-200 characters', { param: 'query' });
      const limit = clampLimit(opts.limit, 20, 100);
      const pattern = `%${escapeLike(needle)}%`;
      const rows = await store.all<ConversationRow & { hit_id: string | null; hit_content: string | null }>(
        `SELECT s.* FROM (
           SELECT ${C_COLS},
             (SELECT m.id FROM messages m WHERE m.conversation_id = c.id AND ${owned(1)}
                AND LOWER(m.content) LIKE LOWER($2) ESCAPE '\\' ORDER BY m.created_at, m.id LIMIT 1) AS hit_id
           FROM conversations c WHERE c.user_id = $1
         ) s
         WHERE s.hit_id IS NOT NULL OR LOWER(s.title) LIKE LOWER($2) ESCAPE '\\'
         ORDER BY s.updated_at DESC, s.id DESC LIMIT $3`,
        [userId, pattern, limit],
      );
      const hits: SearchHit[] = [];
      for (const r of rows) {
        const conversation = toConversation(r);
        if (r.hit_id) {
          const m = await getMessage(store, r.hit_id);
          hits.push({ conversation, snippet: snippet(m.content, needle), messageId: m.id });
        } else {
          hits.push({ conversation, snippet: snippet(conversation.title, needle), messageId: null });
        }
      }
      return hits;
    },
  };
}
