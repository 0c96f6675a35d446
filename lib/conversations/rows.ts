// Row <-> object mapping for the conversations and messages tables, the column lists and ownership filter the queries
// share, and the process-wide timestamp clock.
import type {
  Attachment,
  ChatSettings,
  Citation,
  Conversation,
  Message,
  MessageError,
  MessageRole,
  MessageStatus,
  ToolStep,
  Usage,
  UsedMemory,
} from './types.ts';

let lastStamp = 0;
/** Milliseconds, strictly increasing within this process, so creation order survives same-millisecond writes. */
export function stamp(atLeast = 0): number {
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

export interface ConversationRow {
  id: string;
  title: string;
  model_id: string | null;
  character_slug: string | null;
  settings: string;
  created_at: number | string;
  updated_at: number | string;
  folder_id: string | null;
  pinned_at: number | string | null;
  archived_at: number | string | null;
}
export interface MessageRow {
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
  memories: string | null;
  created_at: number | string;
  updated_at: number | string | null;
  tool_steps: string | null;
}

export const C_COLS = 'c.id, c.title, c.model_id, c.character_slug, c.settings, c.created_at, c.updated_at, c.folder_id, c.pinned_at, c.archived_at';
/** C_COLS unqualified, for an UPDATE … RETURNING. */
export const C_COLS_BARE = C_COLS.replaceAll('c.', '');
export const M_COLS =
  'm.id, m.conversation_id, m.parent_id, m.role, m.content, m.reasoning, m.attachments, m.citations, m.model_id, m.status, m.usage, m.error, m.memories, m.created_at, m.updated_at, m.tool_steps';
/** M_COLS unqualified: what an UPDATE … RETURNING may name (SQLite takes no table prefix there). */
export const M_COLS_BARE = M_COLS.replaceAll('m.', '');
/**
 * Restricts `m` to messages of conversations owned by the user in parameter $N. A lookup of the message's own
 * conversation by its key: `IN (SELECT id FROM conversations WHERE user_id = …)` made SQLite list every conversation
 * of the user for each statement (milliseconds for a user with thousands).
 */
export const owned = (n: number, alias = 'm') => `EXISTS (SELECT 1 FROM conversations oc WHERE oc.id = ${alias}.conversation_id AND oc.user_id = $${n})`;

export const toConversation = (r: ConversationRow): Conversation => ({
  id: r.id,
  title: r.title,
  modelId: r.model_id,
  characterSlug: r.character_slug,
  settings: json<ChatSettings>(r.settings, {}),
  createdAt: Number(r.created_at),
  updatedAt: Number(r.updated_at),
  folderId: r.folder_id ?? null,
  pinnedAt: r.pinned_at == null ? null : Number(r.pinned_at),
  archivedAt: r.archived_at == null ? null : Number(r.archived_at),
});

export const toMessage = (r: MessageRow): Message => ({
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
  memories: json<UsedMemory[]>(r.memories, []),
  createdAt: Number(r.created_at),
  updatedAt: r.updated_at == null ? null : Number(r.updated_at),
  ...(r.tool_steps ? { toolSteps: json<ToolStep[]>(r.tool_steps, []) } : {}),
});
