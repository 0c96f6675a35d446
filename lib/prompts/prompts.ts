// The prompt library: saved prompts a user inserts into the composer by typing `/`. A user's own prompts (user_id
// set) are reached only through userPrompts(store, userId), whose every statement filters by that user, so another
// user's prompt is NOT_FOUND like one that never was; the shared ones (user_id NULL) are read by everyone and changed
// only through sharedPrompts(store), which the operator's routes alone call.
import { randomUUID } from 'node:crypto';
import { ApiError } from '../api/errors.ts';
import type { Param, Store } from '../db/store.ts';

/** How many prompts one user (and the shared library) may keep, the longest title and the longest text. */
export const MAX_PROMPTS = 200;
export const MAX_PROMPT_TITLE = 120;
export const MAX_PROMPT_CHARS = 20_000;

export interface Prompt {
  id: string;
  title: string;
  content: string;
  shared: boolean;
  createdAt: number;
  updatedAt: number;
}

interface Row {
  id: string;
  user_id: string | null;
  title: string;
  content: string;
  created_at: number | string;
  updated_at: number | string;
}

const COLS = 'id, user_id, title, content, created_at, updated_at';
const toPrompt = (r: Row): Prompt => ({
  id: r.id,
  title: r.title,
  content: r.content,
  shared: r.user_id === null,
  createdAt: Number(r.created_at),
  updatedAt: Number(r.updated_at),
});

const notFound = () => new ApiError('NOT_FOUND', 'Prompt not found');

/** A title: one line, trimmed, inner whitespace folded; 400 when empty or too long. */
export function cleanTitle(raw: string): string {
  const t = raw
    .replace(/[\u0000-\u001F\u007F]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (!t) throw new ApiError('INVALID_REQUEST', 'A prompt needs a title', { param: 'title' });
  if (t.length > MAX_PROMPT_TITLE) throw new ApiError('INVALID_REQUEST', `A title can be at most ${MAX_PROMPT_TITLE} characters`, { param: 'title' });
  return t;
}

/** The text as typed (line breaks kept), control characters other than tab and newline dropped, ends trimmed. */
export function cleanContent(raw: string): string {
  const t = raw
    .replace(/\r\n?/g, '\n')
    .replace(/[\u0000-\u0008\u000B-\u001F\u007F]/g, '')
    .trim();
  if (!t) throw new ApiError('INVALID_REQUEST', 'A prompt cannot be empty', { param: 'content' });
  if (t.length > MAX_PROMPT_CHARS) throw new ApiError('INVALID_REQUEST', `A prompt can be at most ${MAX_PROMPT_CHARS} characters`, { param: 'content' });
  return t;
}

let last = 0;
const stamp = () => (last = Math.max(Date.now(), last + 1));

/**
 * The prompts owned by `owner` (a user id), or the shared library (`null`). Private and shared rows live in one
 * table; the owner condition is part of every statement, so neither side can reach the other's rows.
 */
function promptsOf(store: Store, owner: string | null) {
  const who = owner === null ? 'user_id IS NULL' : 'user_id = $1';
  const args = (...rest: Param[]): Param[] => (owner === null ? rest : [owner, ...rest]);
  const p = (n: number) => `$${owner === null ? n : n + 1}`;

  async function get(id: string): Promise<Prompt> {
    if (typeof id !== 'string' || !id) throw notFound();
    const row = await store.get<Row>(`SELECT ${COLS} FROM prompts WHERE ${who} AND id = ${p(1)}`, args(id));
    if (!row) throw notFound();
    return toPrompt(row);
  }

  return {
    get,

    async list(): Promise<Prompt[]> {
      const rows = await store.all<Row>(`SELECT ${COLS} FROM prompts WHERE ${who} ORDER BY title, created_at, id`, args());
      return rows.map(toPrompt);
    },

    async create(input: { title: string; content: string }): Promise<Prompt> {
      const title = cleanTitle(input.title);
      const content = cleanContent(input.content);
      return store.tx(async (q) => {
        // The owner's row locked where the store can, so two saves at once cannot both pass the count. The shared
        // library has no row to lock; only the operator writes it, so a race there overshoots by one at worst.
        if (owner !== null) await q.get(`SELECT id FROM users WHERE id = $1${store.forUpdate}`, [owner]);
        const n = await q.get<{ n: number | string }>(`SELECT COUNT(*) AS n FROM prompts WHERE ${who}`, args());
        if (Number(n?.n ?? 0) >= MAX_PROMPTS)
          throw new ApiError('INVALID_REQUEST', `At most ${MAX_PROMPTS} prompts can be kept: delete some you no longer need`, { param: 'title' });
        const at = stamp();
        const prompt: Prompt = { id: randomUUID(), title, content, shared: owner === null, createdAt: at, updatedAt: at };
        await q.run('INSERT INTO prompts (id, user_id, title, content, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6)', [
          prompt.id,
          owner,
          title,
          content,
          at,
          at,
        ]);
        return prompt;
      });
    },

    async update(id: string, patch: { title?: string; content?: string }): Promise<Prompt> {
      const before = await get(id);
      const title = patch.title === undefined ? before.title : cleanTitle(patch.title);
      const content = patch.content === undefined ? before.content : cleanContent(patch.content);
      const n = await store.run(
        `UPDATE prompts SET title = ${p(1)}, content = ${p(2)}, updated_at = ${p(3)} WHERE ${who} AND id = ${p(4)}`,
        args(title, content, stamp(), id),
      );
      if (n === 0) throw notFound();
      return get(id);
    },

    async remove(id: string): Promise<void> {
      if (typeof id !== 'string' || !id) throw notFound();
      const n = await store.run(`DELETE FROM prompts WHERE ${who} AND id = ${p(1)}`, args(id));
      if (n === 0) throw notFound();
    },
  };
}

/** A user's own prompts. */
export function userPrompts(store: Store, userId: string) {
  if (typeof userId !== 'string' || !userId) throw new TypeError('userPrompts needs a user id');
  return promptsOf(store, userId);
}

/** The prompts the operator shares with everyone (read by all; written only from the operator's routes). */
export const sharedPrompts = (store: Store) => promptsOf(store, null);

export type PromptOps = ReturnType<typeof userPrompts>;
