// POST /api/app/conversations/import: the body is the export file itself (JSON, up to IMPORT_BODY_LIMIT), read as
// bytes and parsed off the event loop (import.ts). The answer says what was taken and what was left out.
import type { AppDeps } from '../http/app-deps.ts';
import { appRoute, json, readBytes } from '../http/app-route.ts';
import { importChats } from './import.ts';
import type { AppImportResult } from './wire.ts';

/** A ChatGPT export of a few thousand chats is tens of MB. */
export const IMPORT_BODY_LIMIT = 100 * 1024 * 1024;

export function importRoutes(deps: AppDeps) {
  return {
    importConversations: appRoute(deps, 'session+csrf', async ({ req, session: { user } }) => {
      const bytes = await readBytes(req, IMPORT_BODY_LIMIT);
      const body: AppImportResult = await importChats(deps.svc.store, user.id, bytes);
      return json(body, 201);
    }),
  };
}
