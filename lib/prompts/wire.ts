// The prompt library's JSON (GET/POST/PATCH /api/app/prompts, and the operator's /api/app/operator/prompts): what
// the browser reads. Types only.

export interface AppPrompt {
  id: string;
  title: string;
  /** The text put into the composer; `{{name}}` marks a place to fill in (the first is selected when inserted). */
  content: string;
  /** Shared by the operator with everyone (read-only to others); false: the user's own, seen by no one else. */
  shared: boolean;
  createdAt: number;
  updatedAt: number;
}

export interface AppPromptList {
  /** The user's own prompts, then the shared ones, each by title. */
  items: AppPrompt[];
  /** Whether this user may add, edit and delete the shared prompts (the operator). */
  canShare: boolean;
  /** How many prompts one user (and the shared library) may keep, and the longest title and text. */
  max: number;
  maxTitle: number;
  maxChars: number;
}

export interface PromptInput {
  title: string;
  content: string;
}

export type PromptPatch = Partial<PromptInput>;
