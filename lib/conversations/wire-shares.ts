// Share links of a chat (lib/conversations/shares.ts) as the browser reads them: the owner's list and the public
// snapshot a link opens. Types only.
import type { AppCitation, AppMessageStatus } from './wire.ts';

/** One of the owner's share links. */
export interface AppShare {
  token: string;
  /** The page's path (`/s/<token>`): the browser makes the link from its own origin. */
  path: string;
  conversationId: string;
  /** The last message of the branch that was shared. */
  leafId: string;
  title: string;
  messageCount: number;
  createdAt: number;
}

export interface AppShareList {
  items: AppShare[];
}

/** A file of a shared message: its name and size; images also a URL under the share (`/api/app/shares/<token>/files/<n>`). */
export interface AppSharedAttachment {
  name: string;
  type: string;
  size: number;
  kind: 'image' | 'document';
  url?: string;
}

/** A message of a shared branch: what it said, nothing of the account (no usage, cost, memories or tool results). */
export interface AppSharedMessage {
  role: 'user' | 'assistant';
  content: string;
  reasoning: string | null;
  modelId: string | null;
  status: AppMessageStatus;
  attachments: AppSharedAttachment[];
  citations: AppCitation[];
  /** The tools an answer called, by name only. */
  tools?: { name: string; server: string | null; status: 'running' | 'done' | 'error' }[];
}

/** GET /api/app/shares/:token (no session needed): the snapshot. */
export interface AppSharedChat {
  title: string;
  modelId: string | null;
  /** When the link was made (the snapshot's moment). */
  sharedAt: number;
  messages: AppSharedMessage[];
}
