// Filing a chat for userConversations: into one of the user's folders (or out of it), pinned, archived. None of it
// is activity, so updated_at (the list's order) stays. The folder row is locked while a chat is filed into it, as
// deleting a folder locks it, so a chat is never filed into a folder deleted at the same moment.
import { ApiError } from '../api/errors.ts';
import { parse } from './input.ts';
import { stamp } from './rows.ts';
import type { UserScope } from './scope.ts';
import { type ConversationOps, organiseSchema } from './types.ts';

export const folderNotFound = () => new ApiError('NOT_FOUND', 'Folder not found', { param: 'folderId' });

export function organiseOps(scope: UserScope): Pick<ConversationOps, 'organise'> {
  const { store, userId, getConversation } = scope;

  return {
    async organise(id, patch) {
      const p = parse(organiseSchema, patch);
      return store.tx(async (q) => {
        const c = await getConversation(q, id, true);
        if (p.folderId) {
          const f = await q.get(`SELECT id FROM folders WHERE id = $1 AND user_id = $2${store.forUpdate}`, [p.folderId, userId]);
          if (!f) throw folderNotFound();
        }
        const folderId = p.folderId === undefined ? c.folderId : p.folderId;
        const pinnedAt = p.pinned === undefined ? c.pinnedAt : p.pinned ? (c.pinnedAt ?? stamp()) : null;
        const archivedAt = p.archived === undefined ? c.archivedAt : p.archived ? (c.archivedAt ?? stamp()) : null;
        await q.run('UPDATE conversations SET folder_id = $1, pinned_at = $2, archived_at = $3 WHERE id = $4 AND user_id = $5', [
          folderId,
          pinnedAt,
          archivedAt,
          id,
          userId,
        ]);
        return { ...c, folderId, pinnedAt, archivedAt };
      });
    },
  };
}
