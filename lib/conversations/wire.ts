// Conversations and their messages as the conversation routes and search send them.

export type WebSearchMode = 'off' | 'on' | 'auto';

export interface ChatSettings {
  systemPrompt?: string;
  temperature?: number;
  webSearch?: WebSearchMode;
  citations?: boolean;
  includeServiceSystemPrompt?: boolean;
  /** Knowledge collections (ids) whose passages the chat retrieves and cites. */
  knowledge?: string[];
}

export interface AppConversation {
  id: string;
  title: string;
  modelId: string | null;
  characterSlug: string | null;
  settings: ChatSettings;
  createdAt: number;
  updatedAt: number;
}

export interface AppAttachment {
  id: string;
  name: string;
  /** MIME type. */
  type: string;
  size: number;
  kind: 'image' | 'document';
  /** Images only: a data: URL for the thumbnail. Documents never carry their bytes back to the browser. */
  previewUrl?: string;
}

export interface AppCitation {
  url: string;
  title?: string;
  date?: string | null;
  /** A knowledge passage (url `knowledge:<file id>#<passage>`): the words quoted, and the file's name is the title. */
  passage?: string;
}

export interface AppUsage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  /** What the request cost, USD (0 when covered by DIEM). */
  costUsd: number;
  costDiem: number;
}

export interface AppError {
  code: string;
  status: number;
  message: string;
  /** Seconds, for 429/503. */
  retryAfter?: number;
}

export type AppMessageStatus = 'complete' | 'streaming' | 'stopped' | 'error';

export interface AppMessage {
  id: string;
  conversationId: string;
  parentId: string | null;
  role: 'user' | 'assistant' | 'system';
  content: string;
  reasoning: string | null;
  attachments: AppAttachment[];
  citations: AppCitation[];
  modelId: string | null;
  status: AppMessageStatus;
  usage: AppUsage | null;
  error: AppError | null;
  createdAt: number;
}

export interface AppConversationWithMessages extends AppConversation {
  /** Every message of every branch, oldest first; the client builds the tree from parentId. */
  messages: AppMessage[];
}

export interface AppSearchHit {
  conversation: AppConversation;
  snippet: string;
  messageId: string | null;
}
