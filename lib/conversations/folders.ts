// A user's chat folders: named, listed in the order made, renamed, deleted. Deleting a folder moves its chats out of
// it (they are kept, in no folder). Every statement filters by the user, so another user's folder is NOT_FOUND.
import { randomUUID } from 'node:crypto';
import { ApiError } from '../api/errors.ts';
import type { Store } from '../db/store.ts';
import { folderNotFound } from './organise.ts';
import { stamp } from './rows.ts';
import { cleanLine } from './text.ts';

export const MAX_FOLDERS = 100;
export const FOLDER_NAME_MAX = 100;

export interface Folder {
  id: string;
  name: string;
  createdAt: number;
}

interface Row {
  id: string;
  name: string;
  created_at: number | string;
}
const toFolder = (r: Row): Folder => ({ id: r.id, name: r.name, createdAt: Number(r.created_at) });

function cleanName(raw: string): string {
  const n = cleanLine(raw);
  if (n.length < 1 || n.length > FOLDER_NAME_MAX)
    throw new ApiError('INVALID_REQUEST', `A folder name must be 1-${FOLDER_NAME_MAX} characters`, { param: 'name' });
  return n;
}

export function userFolders(store: Store, userId: string) {
  if (typeof userId !== 'string' || !userId) throw new TypeError('userFolders needs a user id');

  return {
    async list(): Promise<Folder[]> {
      const rows = await store.all<Row>('SELECT id, name, created_at FROM folders WHERE user_id = $1 ORDER BY created_at, id', [userId]);
      return rows.map(toFolder);
    },

    async create(name: string): Promise<Folder> {
      const clean = cleanName(name);
      return store.tx(async (q) => {
        // The user's row, locked where the store can, so two creates at once cannot both pass the count.
        await q.get(`SELECT id FROM users WHERE id = $1${store.forUpdate}`, [userId]);
        const n = await q.get<{ n: number | string }>('SELECT COUNT(*) AS n FROM folders WHERE user_id = $1', [userId]);
        if (Number(n?.n ?? 0) >= MAX_FOLDERS) throw new ApiError('INVALID_REQUEST', `You can have at most ${MAX_FOLDERS} folders`, { param: 'name' });
        const f: Folder = { id: randomUUID(), name: clean, createdAt: stamp() };
        await q.run('INSERT INTO folders (id, user_id, name, created_at) VALUES ($1, $2, $3, $4)', [f.id, userId, f.name, f.createdAt]);
        return f;
      });
    },

    async rename(id: string, name: string): Promise<Folder> {
      const clean = cleanName(name);
      const n = await store.run('UPDATE folders SET name = $1 WHERE id = $2 AND user_id = $3', [clean, id, userId]);
      if (n === 0) throw folderNotFound();
      const row = await store.get<Row>('SELECT id, name, created_at FROM folders WHERE id = $1 AND user_id = $2', [id, userId]);
      if (!row) throw folderNotFound();
      return toFolder(row);
    },

    /** Deletes the folder; its chats stay, in no folder. */
    async remove(id: string): Promise<void> {
      await store.tx(async (q) => {
        const f = await q.get(`SELECT id FROM folders WHERE id = $1 AND user_id = $2${store.forUpdate}`, [id, userId]);
        if (!f) throw folderNotFound();
        await q.run('UPDATE conversations SET folder_id = NULL WHERE user_id = $1 AND folder_id = $2', [userId, id]);
        await q.run('DELETE FROM folders WHERE id = $1 AND user_id = $2', [id, userId]);
      });
    },
  };
}
