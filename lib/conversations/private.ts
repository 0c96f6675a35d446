// Private chats, stored for one user: a vault (the salt of the key the page derives from the passphrase, and a
// known text sealed with it) and chats whose title and messages are sealed in the page. The server keeps, lists and
// deletes them but can open none of it; every statement is bound to the user (privateChats checks the id first).
import { randomUUID } from 'node:crypto';
import { ApiError } from '../api/errors.ts';
import type { Store } from '../db/store.ts';

/** A sealed text as the page writes it: `v1.` and base64 of nonce ‖ AES-GCM ciphertext ‖ tag. */
export const SEALED_TEXT = /^v1\.[A-Za-z0-9+/]+={0,2}$/;
/** The largest sealed field kept (a long answer, sealed and base64'd). */
export const SEALED_MAX = 512 * 1024;

export interface PrivateVault {
  salt: string;
  check: string;
  createdAt: number;
}

export interface PrivateChat {
  id: string;
  title: string;
  modelId: string;
  createdAt: number;
  updatedAt: number;
}

export interface PrivateMessage {
  id: string;
  seq: number;
  role: 'user' | 'assistant';
  content: string;
  /** The completion's request id (its usage row), on answers. */
  requestId: string | null;
  createdAt: number;
}

const notFound = () => new ApiError('NOT_FOUND', 'Private chat not found');

type ChatRow = { id: string; title: string; model_id: string; created_at: number | string; updated_at: number | string };
const toChat = (r: ChatRow): PrivateChat => ({
  id: r.id,
  title: r.title,
  modelId: r.model_id,
  createdAt: Number(r.created_at),
  updatedAt: Number(r.updated_at),
});

export function privateChats(store: Store, userId: string) {
  if (!userId) throw new Error('privateChats needs a user');

  async function chat(id: string): Promise<PrivateChat> {
    const row = await store.get<ChatRow>('SELECT id, title, model_id, created_at, updated_at FROM private_chats WHERE id = $1 AND user_id = $2', [id, userId]);
    if (!row) throw notFound();
    return toChat(row);
  }

  return {
    async vault(): Promise<PrivateVault | null> {
      const r = await store.get<{ salt: string; check_text: string; created_at: number | string }>(
        'SELECT salt, check_text, created_at FROM private_vaults WHERE user_id = $1',
        [userId],
      );
      return r ? { salt: r.salt, check: r.check_text, createdAt: Number(r.created_at) } : null;
    },

    /** Makes the vault once; a second one would orphan every chat sealed under the first (409). */
    async createVault(salt: string, check: string): Promise<PrivateVault> {
      const now = Date.now();
      const made = await store.run(
        'INSERT INTO private_vaults (user_id, salt, check_text, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT (user_id) DO NOTHING',
        [userId, salt, check, now],
      );
      if (!made) throw new ApiError('CONFLICT', 'Private chats already have a passphrase: unlock with it');
      return { salt, check, createdAt: now };
    },

    async list(): Promise<PrivateChat[]> {
      const rows = await store.all<ChatRow>(
        'SELECT id, title, model_id, created_at, updated_at FROM private_chats WHERE user_id = $1 ORDER BY updated_at DESC, id',
        [userId],
      );
      return rows.map(toChat);
    },

    chat,

    async create(title: string, modelId: string): Promise<PrivateChat> {
      const now = Date.now();
      const c: PrivateChat = { id: randomUUID(), title, modelId, createdAt: now, updatedAt: now };
      await store.run('INSERT INTO private_chats (id, user_id, title, model_id, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6)', [
        c.id,
        userId,
        title,
        modelId,
        now,
        now,
      ]);
      return c;
    },

    async rename(id: string, title: string): Promise<PrivateChat> {
      if (!(await store.run('UPDATE private_chats SET title = $1, updated_at = $2 WHERE id = $3 AND user_id = $4', [title, Date.now(), id, userId])))
        throw notFound();
      return chat(id);
    },

    async remove(id: string): Promise<void> {
      await chat(id);
      await store.tx(async (q) => {
        await q.run('DELETE FROM private_messages WHERE chat_id = $1 AND user_id = $2', [id, userId]);
        await q.run('DELETE FROM private_chats WHERE id = $1 AND user_id = $2', [id, userId]);
      });
    },

    async messages(id: string): Promise<PrivateMessage[]> {
      await chat(id);
      const rows = await store.all<{ id: string; seq: number | string; role: string; content: string; request_id: string | null; created_at: number | string }>(
        'SELECT id, seq, role, content, request_id, created_at FROM private_messages WHERE chat_id = $1 AND user_id = $2 ORDER BY seq',
        [id, userId],
      );
      return rows.map((r) => ({
        id: r.id,
        seq: Number(r.seq),
        role: r.role as PrivateMessage['role'],
        content: r.content,
        requestId: r.request_id,
        createdAt: Number(r.created_at),
      }));
    },

    /** Appends one turn (the question and its answer, sealed) after the chat's last message. */
    async append(id: string, turn: { role: 'user' | 'assistant'; content: string; requestId?: string | null }[]): Promise<PrivateMessage[]> {
      await chat(id);
      const now = Date.now();
      return store.tx(async (q) => {
        const last = await q.get<{ seq: number | string | null }>('SELECT MAX(seq) AS seq FROM private_messages WHERE chat_id = $1 AND user_id = $2', [
          id,
          userId,
        ]);
        let seq = Number(last?.seq ?? -1);
        const out: PrivateMessage[] = [];
        for (const m of turn) {
          const row: PrivateMessage = { id: randomUUID(), seq: ++seq, role: m.role, content: m.content, requestId: m.requestId ?? null, createdAt: now };
          await q.run(
            'INSERT INTO private_messages (id, chat_id, user_id, seq, role, content, request_id, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)',
            [row.id, id, userId, row.seq, row.role, row.content, row.requestId, now],
          );
          out.push(row);
        }
        await q.run('UPDATE private_chats SET updated_at = $1 WHERE id = $2 AND user_id = $3', [now, id, userId]);
        return out;
      });
    },
  };
}
