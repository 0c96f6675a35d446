// Conversation search for userConversations: title and message text, the user's own conversations only.
import { ApiError } from '../api/errors.ts';
import { clampLimit } from './input.ts';
import { C_COLS, type ConversationRow, owned, toConversation } from './rows.ts';
import type { UserScope } from './scope.ts';
import { cleanLine, escapeLike, snippet } from './text.ts';
import type { ConversationOps, SearchHit } from './types.ts';

export function searchOps(scope: UserScope): Pick<ConversationOps, 'search'> {
  const { store, userId, getMessage } = scope;

  return {
    async search(query, opts = {}) {
      if (typeof query !== 'string') throw new ApiError('INVALID_REQUEST', 'query must be a string', { param: 'query' });
      const needle = cleanLine(query);
      if (!needle || needle.length > 200) throw new ApiError('INVALID_REQUEST', 'query must be 1-200 characters', { param: 'query' });
      const limit = clampLimit(opts.limit, 20, 100);
      const pattern = `%${escapeLike(needle)}%`;
      const rows = await store.all<ConversationRow & { hit_id: string | null; hit_content: string | null }>(
        `SELECT s.* FROM (
           SELECT ${C_COLS},
             (SELECT m.id FROM messages m WHERE m.conversation_id = c.id AND ${owned(1)}
                AND LOWER(m.content) LIKE LOWER($2) ESCAPE '\\' ORDER BY m.created_at, m.id LIMIT 1) AS hit_id
           FROM conversations c WHERE c.user_id = $1
           ${opts.folder === undefined ? '' : 'AND c.folder_id = $4'}
         ) s
         WHERE s.hit_id IS NOT NULL OR LOWER(s.title) LIKE LOWER($2) ESCAPE '\\'
         ORDER BY s.updated_at DESC, s.id DESC LIMIT $3`,
        opts.folder === undefined ? [userId, pattern, limit] : [userId, pattern, limit, opts.folder],
      );
      const hits: SearchHit[] = [];
      for (const r of rows) {
        const conversation = toConversation(r);
        if (r.hit_id) {
          const m = await getMessage(store, r.hit_id);
          hits.push({ conversation, snippet: snippet(m.content, needle), messageId: m.id });
        } else {
          hits.push({ conversation, snippet: snippet(conversation.title, needle), messageId: null });
        }
      }
      return hits;
    },
  };
}
