// A user's memories: facts they chose to keep across chats (typed in, saved from a message, or a suggestion they
// accepted); the server never writes one on its own. Every operation is reached through userMemories(store, userId)
// and every statement filters by that user, so another user's memory is NOT_FOUND like one that never was.
import { randomUUID } from 'node:crypto';
import { ApiError } from '../api/errors.ts';
import type { Store } from '../db/store.ts';

/** How many memories one user may keep, and how long one may be (in characters). */
export const MAX_MEMORIES = 200;
export const MAX_MEMORY_CHARS = 1000;

export interface Memory {
  id: string;
  content: string;
  enabled: boolean;
  sourceMessageId: string | null;
  createdAt: number;
  updatedAt: number;
}

interface Row {
  id: string;
  content: string;
  enabled: boolean | number;
  source_message_id: string | null;
  created_at: number | string;
  updated_at: number | string;
}

const COLS = 'id, content, enabled, source_message_id, created_at, updated_at';
const toMemory = (r: Row): Memory => ({
  id: r.id,
  content: r.content,
  enabled: Boolean(r.enabled),
  sourceMessageId: r.source_message_id,
  createdAt: Number(r.created_at),
  updatedAt: Number(r.updated_at),
});

const notFound = () => new ApiError('NOT_FOUND', 'Memory not found');

/** One line of text, trimmed, inner whitespace runs kept as single spaces; 400 when empty or too long. */
export function cleanMemory(raw: string): string {
  const t = raw
    .replace(/[\u0000-\u0008\u000B-\u001F\u007F]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (!t) throw new ApiError('INVALID_REQUEST', 'A memory cannot be empty', { param: 'content' });
  if (t.length > MAX_MEMORY_CHARS) throw new ApiError('INVALID_REQUEST', `A memory can be at most ${MAX_MEMORY_CHARS} characters`, { param: 'content' });
  return t;
}

let last = 0;
/** Milliseconds, strictly increasing in this process, so the order of two saves in one millisecond is kept. */
const stamp = () => (last = Math.max(Date.now(), last + 1));

export function userMemories(store: Store, userId: string) {
  if (typeof userId !== 'string' || !userId) throw new TypeError('userMemories needs a user id');

  async function get(id: string): Promise<Memory> {
    if (typeof id !== 'string' || !id) throw notFound();
    const row = await store.get<Row>(`SELECT ${COLS} FROM memories WHERE id = $1 AND user_id = $2`, [id, userId]);
    if (!row) throw notFound();
    return toMemory(row);
  }

  return {
    get,

    /** Every memory of the user, oldest first. */
    async list(): Promise<Memory[]> {
      const rows = await store.all<Row>(`SELECT ${COLS} FROM memories WHERE user_id = $1 ORDER BY created_at, id`, [userId]);
      return rows.map(toMemory);
    },

    /** The enabled ones, newest first (the order the prompt budget takes them in). */
    async enabled(): Promise<Memory[]> {
      // The limit is written into the text: bound as a parameter, SQLite's sorter cost 10 µs more per chat turn.
      const rows = await store.all<Row>(
        `SELECT ${COLS} FROM memories WHERE user_id = $1 AND enabled = $2 ORDER BY created_at DESC, id DESC LIMIT ${MAX_MEMORIES}`,
        [userId, true],
      );
      return rows.map(toMemory);
    },

    /**
     * Saves a memory. Saving the same text from the same message again answers the memory saved before (a double
     * click, or the suggestion accepted twice), with `created: false`; other text from that message is a new memory.
     */
    async create(input: { content: string; sourceMessageId?: string | null }): Promise<{ memory: Memory; created: boolean }> {
      const content = cleanMemory(input.content);
      const source = input.sourceMessageId ?? null;
      return store.tx(async (q) => {
        // The user's row, locked where the store can, so two saves at once cannot both pass the count.
        await q.get(`SELECT id FROM users WHERE id = $1${store.forUpdate}`, [userId]);
        if (source) {
          const had = await q.get<Row>(`SELECT ${COLS} FROM memories WHERE user_id = $1 AND source_message_id = $2 AND content = $3`, [
            userId,
            source,
            content,
          ]);
          if (had) return { memory: toMemory(had), created: false };
        }
        const n = await q.get<{ n: number | string }>('SELECT COUNT(*) AS n FROM memories WHERE user_id = $1', [userId]);
        if (Number(n?.n ?? 0) >= MAX_MEMORIES)
          throw new ApiError('INVALID_REQUEST', `You can keep at most ${MAX_MEMORIES} memories: delete some you no longer need`, { param: 'content' });
        const at = stamp();
        const m: Memory = { id: randomUUID(), content, enabled: true, sourceMessageId: source, createdAt: at, updatedAt: at };
        await q.run('INSERT INTO memories (id, user_id, content, enabled, source_message_id, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7)', [
          m.id,
          userId,
          m.content,
          true,
          m.sourceMessageId,
          at,
          at,
        ]);
        return { memory: m, created: true };
      });
    },

    async update(id: string, patch: { content?: string; enabled?: boolean }): Promise<Memory> {
      const before = await get(id);
      const content = patch.content === undefined ? before.content : cleanMemory(patch.content);
      const enabled = patch.enabled ?? before.enabled;
      const n = await store.run('UPDATE memories SET content = $1, enabled = $2, updated_at = $3 WHERE id = $4 AND user_id = $5', [
        content,
        enabled,
        stamp(),
        id,
        userId,
      ]);
      if (n === 0) throw notFound();
      return get(id);
    },

    async remove(id: string): Promise<void> {
      if (typeof id !== 'string' || !id) throw notFound();
      const n = await store.run('DELETE FROM memories WHERE id = $1 AND user_id = $2', [id, userId]);
      if (n === 0) throw notFound();
    },
  };
}

export type MemoryOps = ReturnType<typeof userMemories>;
