// The conversation store's public shapes: what callers pass in (validated by these zod schemas) and what comes back.
import { z } from 'zod';

export const chatSettingsSchema = z.strictObject({
  systemPrompt: z.string().max(20_000).optional(),
  temperature: z.number().min(0).max(2).optional(),
  webSearch: z.enum(['off', 'on', 'auto']).optional(),
  citations: z.boolean().optional(),
  includeServiceSystemPrompt: z.boolean().optional(),
  /** The user's saved memories go into this chat's prompts (absent: yes). */
  memory: z.boolean().optional(),
  /** The operator's MCP servers (ids) whose tools this chat's answers may call (lib/tools). */
  tools: z.array(z.string().min(1).max(200)).max(50).optional(),
  knowledge: z.array(z.string().min(1).max(100)).max(10).optional(),
});
export type ChatSettings = z.infer<typeof chatSettingsSchema>;

/** A settings patch: a value sets the key, `null` removes it, an absent key is left as it is. */
export const settingsPatchSchema = z.strictObject({
  systemPrompt: z.string().max(20_000).nullable().optional(),
  temperature: z.number().min(0).max(2).nullable().optional(),
  webSearch: z.enum(['off', 'on', 'auto']).nullable().optional(),
  citations: z.boolean().nullable().optional(),
  includeServiceSystemPrompt: z.boolean().nullable().optional(),
  memory: z.boolean().nullable().optional(),
  tools: z.array(z.string().min(1).max(200)).max(50).nullable().optional(),
  knowledge: z.array(z.string().min(1).max(100)).max(10).nullable().optional(),
});
export type ChatSettingsPatch = z.infer<typeof settingsPatchSchema>;

export type MessageRole = 'user' | 'assistant' | 'system';
export type MessageStatus = 'complete' | 'streaming' | 'stopped' | 'error';

const citationSchema = z.looseObject({
  url: z.string().max(4096),
  title: z.string().max(1000).optional(),
  date: z.string().max(100).nullable().optional(),
  passage: z.string().max(4000).optional(),
});
export type Citation = z.infer<typeof citationSchema>;
const toolStepSchema = z.looseObject({
  id: z.string().max(200),
  round: z.number().int().min(0).max(1000),
  name: z.string().max(200),
  server: z.string().max(200).nullable(),
  arguments: z.string().max(20_000),
  status: z.enum(['running', 'done', 'error']),
  result: z.string().max(1_000_000),
  truncated: z.boolean().optional(),
  startedAt: z.number(),
  ms: z.number().nullable(),
});
export type ToolStep = z.infer<typeof toolStepSchema>;
const attachmentSchema = z.record(z.string(), z.unknown());
export type Attachment = z.infer<typeof attachmentSchema>;
const usageSchema = z.record(z.string(), z.unknown());
export type Usage = z.infer<typeof usageSchema>;
/** Why a turn failed, kept on the message so the chat can show it after a reload. */
const messageErrorSchema = z.strictObject({
  code: z.string().min(1).max(100),
  status: z.number().int().min(0).max(999),
  message: z.string().max(2000),
  retryAfter: z
    .number()
    .min(0)
    .max(86_400 * 7)
    .optional(),
});
export type MessageError = z.infer<typeof messageErrorSchema>;
/** A memory an answer was given, as it read then (lib/memory). */
const usedMemorySchema = z.strictObject({ id: z.string().min(1).max(200), content: z.string().max(10_000) });
export type UsedMemory = z.infer<typeof usedMemorySchema>;

export interface Conversation {
  id: string;
  title: string;
  modelId: string | null;
  characterSlug: string | null;
  settings: ChatSettings;
  createdAt: number;
  updatedAt: number;
  /** The user's folder it is filed in (null: none). */
  folderId: string | null;
  /** When it was pinned / archived (null: not). An archived chat is left out of the lists but found by search. */
  pinnedAt: number | null;
  archivedAt: number | null;
}

/** Which of the user's chats a list holds; each left out means any, except `archived` (default: not archived). */
export interface ListFilter {
  /** A folder's id, or null for the chats in no folder. */
  folder?: string | null;
  pinned?: boolean;
  archived?: boolean;
}

/** Filing a chat: a folder (null: out of its folder), pinned, archived. */
export const organiseSchema = z
  .strictObject({
    folderId: z.string().min(1).max(200).nullable().optional(),
    pinned: z.boolean().optional(),
    archived: z.boolean().optional(),
  })
  .refine((p) => p.folderId !== undefined || p.pinned !== undefined || p.archived !== undefined, { message: 'nothing to change' });
export type OrganisePatch = z.input<typeof organiseSchema>;

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
  /** The user's memories this answer's prompt held (empty: none). */
  memories: UsedMemory[];
  createdAt: number;
  /** When the row was last written (a streaming answer's heartbeat); null for rows from before migration 5. */
  updatedAt: number | null;
  /** The server-side tool calls of an answer (lib/tools), in order; absent or empty: none. */
  toolSteps?: ToolStep[];
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

export const MAX_CONTENT = 2_000_000;
const idSchema = z.string().min(1).max(200);

export const createSchema = z.strictObject({
  title: z.string().max(10_000).optional(),
  modelId: z.string().min(1).max(200).nullable().optional(),
  characterSlug: z.string().min(1).max(200).nullable().optional(),
  settings: chatSettingsSchema.optional(),
});
export type CreateConversationInput = z.input<typeof createSchema>;

export const addMessageSchema = z.strictObject({
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
  memories: z.array(usedMemorySchema).max(200).optional(),
});
export type AddMessageInput = z.input<typeof addMessageSchema>;

/** A turn of the chat stored at once: the user's message and the answer's row, which hangs under it. */
export interface AddTurnInput {
  user: AddMessageInput;
  assistant: Omit<AddMessageInput, 'parentId'>;
  /** Renames the chat (its first turn). */
  title?: string;
  /** The model the chat's next turns use. */
  modelId?: string | null;
}

export const updateMessageSchema = z
  .strictObject({
    content: z.string().max(MAX_CONTENT).optional(),
    reasoning: z.string().max(MAX_CONTENT).nullable().optional(),
    status: z.enum(['complete', 'streaming', 'stopped', 'error']).optional(),
    usage: usageSchema.nullable().optional(),
    citations: z.array(citationSchema).max(500).optional(),
    error: messageErrorSchema.nullable().optional(),
    modelId: z.string().min(1).max(200).nullable().optional(),
    toolSteps: z.array(toolStepSchema).max(200).optional(),
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

export interface ConversationOps {
  create(input?: CreateConversationInput): Promise<Conversation>;
  /** The conversation alone (no messages). */
  conversation(id: string): Promise<Conversation>;
  /** The conversation with every message (all branches), in creation order. */
  get(id: string): Promise<ConversationWithMessages>;
  /** The conversation with only the messages on the path to leafId (default: the latest leaf) — for export. */
  withPath(id: string, leafId?: string): Promise<ConversationWithMessages>;
  list(opts?: { limit?: number; cursor?: string | null } & ListFilter): Promise<{ items: Conversation[]; nextCursor: string | null }>;
  /** Files the chat (folder, pinned, archived) without moving it in the activity order. */
  organise(id: string, patch: OrganisePatch): Promise<Conversation>;
  rename(id: string, title: string): Promise<Conversation>;
  /** The model new turns use (null: the default, or the character's model). */
  setModel(id: string, modelId: string | null): Promise<Conversation>;
  remove(id: string): Promise<void>;
  updateSettings(id: string, patch: ChatSettingsPatch): Promise<Conversation>;
  addMessage(conversationId: string, input: AddMessageInput): Promise<Message>;
  /**
   * The user's message and the answer under it, with the chat's title and model when the turn sets them, in one
   * transaction; with the conversation as it then is.
   */
  addTurn(conversationId: string, turn: AddTurnInput): Promise<{ user: Message; assistant: Message; conversation: Conversation }>;
  /** One message of one of the user's conversations (NOT_FOUND otherwise). */
  message(id: string): Promise<Message>;
  updateMessage(id: string, patch: UpdateMessagePatch): Promise<Message>;
  updateMessage(id: string, patch: UpdateMessagePatch, opts: UpdateMessageOptions): Promise<Message | undefined>;
  path(conversationId: string, leafId?: string): Promise<Message[]>;
  siblings(messageId: string): Promise<{ ids: string[]; index: number }>;
  branchLeaf(messageId: string): Promise<Message>;
  /** `folder`: only chats in that folder. Archived chats are found too. */
  search(query: string, opts?: { limit?: number; folder?: string }): Promise<SearchHit[]>;
}
