// The memory page's routes: list, save, edit or switch, delete, and the download of every memory. Every call goes
// through userMemories(store, <session user>), so another user's memory is a plain 404.
import { z } from 'zod';
import type { AppDeps } from '../http/app-deps.ts';
import { appRoute, json, noContent, type SessionCtx } from '../http/app-route.ts';
import { userConversations } from '../conversations/conversations.ts';
import { contentDisposition } from '../conversations/app-download.ts';
import { MAX_MEMORIES, MAX_MEMORY_CHARS, type Memory, userMemories } from './memories.ts';
import type { AppMemory, AppMemoryList } from './wire.ts';

// Lengths are checked after whitespace is folded (memories.ts#cleanMemory); this bound only caps what is read.
const content = z.string().max(MAX_MEMORY_CHARS * 4);
const createBody = z.strictObject({ content, sourceMessageId: z.string().min(1).max(200).optional() });
const updateBody = z
  .strictObject({ content: content.optional(), enabled: z.boolean().optional() })
  .refine((b) => b.content !== undefined || b.enabled !== undefined, { message: 'Send content or enabled' });

const toApp = (m: Memory): AppMemory => ({ ...m });

export function memoryRoutes(deps: AppDeps) {
  const { store } = deps.svc;
  const opsOf = (s: SessionCtx) => userMemories(store, s.user.id);

  return {
    listMemories: appRoute(deps, 'session', async ({ session }) => {
      const items = await opsOf(session).list();
      const body: AppMemoryList = { items: items.map(toApp), max: MAX_MEMORIES, maxChars: MAX_MEMORY_CHARS, tokenBudget: deps.app.memoryTokens };
      return json(body);
    }),

    createMemory: appRoute(deps, { auth: 'session+csrf', body: createBody }, async ({ session, body }) => {
      // Saved from a message: one of the user's own (404 otherwise), so a memory never points into another's chat.
      if (body.sourceMessageId) await userConversations(store, session.user.id).message(body.sourceMessageId);
      const { memory, created } = await opsOf(session).create(body);
      return json(toApp(memory), created ? 201 : 200);
    }),

    updateMemory: appRoute(deps, { auth: 'session+csrf', body: updateBody }, async ({ params, session, body }) => {
      return json(toApp(await opsOf(session).update(params.id ?? '', body)));
    }),

    deleteMemory: appRoute(deps, 'session+csrf', async ({ params, session }) => {
      await opsOf(session).remove(params.id ?? '');
      return noContent();
    }),

    /** Every memory as a JSON file: part of what the user can take with them. */
    exportMemories: appRoute(deps, 'session', async ({ session }) => {
      const items = await opsOf(session).list();
      const file = {
        kind: 'lagoon.memories',
        version: 1,
        exportedAt: new Date().toISOString(),
        // A wallet user's stored email is an internal placeholder: such a user is named by the wallet.
        user: session.user.wallet ? { wallet: session.user.wallet.address } : { email: session.user.email },
        memories: items.map((m) => ({
          content: m.content,
          enabled: m.enabled,
          createdAt: new Date(m.createdAt).toISOString(),
          updatedAt: new Date(m.updatedAt).toISOString(),
        })),
      };
      return new Response(`${JSON.stringify(file, null, 2)}\n`, {
        headers: {
          'content-type': 'application/json; charset=utf-8',
          'content-disposition': contentDisposition('Lagoon memories', 'json', { suffix: ` ${new Date().toISOString().slice(0, 10)}` }),
          'cache-control': 'no-store',
          'x-content-type-options': 'nosniff',
        },
      });
    }),
  };
}
