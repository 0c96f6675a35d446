// Importing chat history (issue 32): an export from ChatGPT, Open WebUI or LibreChat becomes the user's chats, every
// branch kept (a message's parent is its parent there), with the chats' own dates. The file is parsed in a worker
// thread (import-worker.ts); the chats are written through the user's conversation operations, so they are the
// user's like any other. What was taken and what was left out (and why) is the answer.
import { Worker } from 'node:worker_threads';
import { ApiError } from '../api/errors.ts';
import type { Store } from '../db/store.ts';
import { userConversations } from './conversations.ts';
import type { ImportSource, ParsedImport } from './import-parse.ts';
import { MAX_CONTENT } from './types.ts';

export const IMPORT_LIMITS = { maxChats: 2_000, maxMessages: 5_000 };

export interface ImportResult {
  source: ImportSource;
  imported: { id: string; title: string; messages: number }[];
  skipped: { title: string; reason: string }[];
  /** Messages left out: system, tool and hidden ones, and images or files inside messages. */
  dropped: number;
}

function parseInWorker(bytes: Buffer): Promise<ParsedImport> {
  return new Promise((resolve, reject) => {
    const w = new Worker(new URL('./import-worker.ts', import.meta.url), { workerData: { bytes, limits: IMPORT_LIMITS } });
    w.once('message', (m: { ok?: ParsedImport; error?: string }) => {
      void w.terminate();
      if (m.ok) resolve(m.ok);
      else reject(new ApiError('INVALID_REQUEST', m.error ?? 'The file could not be read', { param: 'file' }));
    });
    w.once('error', (e) => reject(e));
  });
}

const nextTurn = () => new Promise<void>((r) => setImmediate(r));

export async function importChats(store: Store, userId: string, bytes: Buffer): Promise<ImportResult> {
  const parsed = await parseInWorker(bytes);
  const ops = userConversations(store, userId);
  const imported: ImportResult['imported'] = [];
  for (const chat of parsed.chats) {
    const c = await ops.create({ title: chat.title });
    const ids = new Map<string, string>();
    for (const m of chat.messages) {
      const parentId = m.parentKey === null ? null : (ids.get(m.parentKey) ?? null);
      const added = await ops.addMessage(c.id, { parentId, role: m.role, content: m.content.slice(0, MAX_CONTENT) });
      ids.set(m.key, added.id);
    }
    // The chat's own dates, so the history keeps its order (scoped to the user, as every statement here is).
    const created = chat.createdAt ?? chat.updatedAt;
    if (created !== null) {
      await store.run('UPDATE conversations SET created_at = $3, updated_at = $4 WHERE id = $1 AND user_id = $2', [
        c.id,
        userId,
        created,
        chat.updatedAt ?? created,
      ]);
    }
    imported.push({ id: c.id, title: chat.title, messages: chat.messages.length });
    // A large history is written a chat at a time, letting other requests through between them.
    await nextTurn();
  }
  return { source: parsed.source, imported, skipped: parsed.skipped, dropped: parsed.dropped };
}
