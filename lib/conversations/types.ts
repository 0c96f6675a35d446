// The conversation store's public shapes: what callers pass in (validated by these zod schemas) and what comes back.
import { z } from 'zod';

export const chatSettingsSchema = z.strictObject({
  systemPrompt: z.string().max(20_000).optional(),
  temperature: z.number().min(0).max(2).optional(),
  webSearch: z.enum(['off', 'on', 'auto']).optional(),
  citations: z.boolean().optional(),
  includeServiceSystemPrompt: z.boolean().optional(),
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
});
export type AddMessageInput = z.input<typeof addMessageSchema>;

export const updateMessageSchema = z
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
