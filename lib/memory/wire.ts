// The memory page's JSON (GET/POST/PATCH /api/app/memories): what the browser reads. Types only.

export interface AppMemory {
  id: string;
  content: string;
  /** A disabled memory is kept but goes into no prompt. */
  enabled: boolean;
  /** The message it was saved from (a suggestion accepted, or "Remember this" on a message); null when typed in. */
  sourceMessageId: string | null;
  createdAt: number;
  updatedAt: number;
}

export interface AppMemoryList {
  items: AppMemory[];
  /** How many memories one user may keep, and how long each may be. */
  max: number;
  maxChars: number;
  /** The most of a prompt the enabled memories may take, in estimated tokens (0: memories go into no prompt). */
  tokenBudget: number;
}

export interface CreateMemoryRequest {
  content: string;
  sourceMessageId?: string;
}

export interface UpdateMemoryRequest {
  content?: string;
  enabled?: boolean;
}
