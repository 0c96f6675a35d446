// Conversations and their messages as the conversation routes and search send them.

export type WebSearchMode = 'off' | 'on' | 'auto';

export interface ChatSettings {
  systemPrompt?: string;
  temperature?: number;
  webSearch?: WebSearchMode;
  citations?: boolean;
  includeServiceSystemPrompt?: boolean;
  /** The user's saved memories go into this chat's prompts (absent: yes). */
  memory?: boolean;
  /** The MCP servers (ids, GET /api/app/tools) whose tools this chat's answers may call. */
  tools?: string[];
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
  /** The folder it is filed in (null: none). */
  folderId: string | null;
  pinned: boolean;
  /** Archived: left out of the sidebar's lists, found by search, restorable. */
  archived: boolean;
}

export interface AppFolder {
  id: string;
  name: string;
  createdAt: number;
}

export interface AppFolderList {
  items: AppFolder[];
  max: number;
}

export interface CreateFolderRequest {
  name: string;
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
  /** The user's memories this answer was given, as they read then; absent when none. */
  memories?: AppUsedMemory[];
  createdAt: number;
  /** The server-side tool calls the answer made, in order (absent: none). */
  toolSteps?: AppToolStep[];
}

/** One tool call of an answer: what the model asked for, what came back, and how long it took. */
export interface AppToolStep {
  /** The model's call id. */
  id: string;
  /** The model round that asked for it (0: the first). */
  round: number;
  /** The tool's name as the model saw it. */
  name: string;
  /** Where it ran: the MCP server's name, or null for a built-in tool. */
  server: string | null;
  /** The arguments, as the model wrote them (JSON text, cut to a few KB). */
  arguments: string;
  status: 'running' | 'done' | 'error';
  /** What the model read back (cut to the result cap); the failure's text when status is 'error'. */
  result: string;
  /** The result was cut to the cap. */
  truncated?: boolean;
  startedAt: number;
  /** How long the call took; null while running. */
  ms: number | null;
}

export interface AppUsedMemory {
  id: string;
  content: string;
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

/** What an import of another app's chat export took and left out (POST /api/app/conversations/import). */
export interface AppImportResult {
  source: 'chatgpt' | 'open-webui' | 'librechat' | 'lagoon';
  imported: { id: string; title: string; messages: number }[];
  skipped: { title: string; reason: string }[];
  /** Messages left out: system, tool and hidden ones, and images or files inside messages. */
  dropped: number;
}
