// Conversation routes: list, create, read (every branch), update, delete, export and search. Every call goes through
// userConversations(store, <session user>), so another user's conversation is a plain 404.
import { z } from 'zod';
import { ApiError } from '../api/errors.ts';
import { type ChatSettingsPatch, type CreateConversationInput, exportJson, exportMarkdown, userConversations } from './conversations.ts';
import { cleanLine, TITLE_MAX } from './text.ts';
import { toAppMessage } from './message.ts';
import type { AppDeps } from '../http/app-deps.ts';
import { appRoute, json, noContent, type SessionCtx } from '../http/app-route.ts';
import type { AppConversation, AppConversationWithMessages, AppSearchHit } from '../wire.ts';
import { getCharacter } from '../characters/characters.ts';
import { catalogueSource, webSearchUnavailable } from '../catalogue/sources.ts';
import { characterToApp } from '../catalogue/source.ts';
import { beginWithCharacter } from '../characters/app-chat.ts';
import { contentDisposition, fileStem } from './app-download.ts';
import { archiveStream } from './archive.ts';
import { toAppConversation } from './present.ts';
import { notFound } from './input.ts';
import { branchThrough, pathTo } from './tree.ts';

const modelId = z.string().trim().min(1).max(200);
const createBody = z.strictObject({
  title: z.string().max(10_000).optional(),
  modelId: modelId.nullable().optional(),
  characterSlug: z.string().trim().min(1).max(200).nullable().optional(),
  // Checked in full by the conversation store (400 with the offending key).
  settings: z.record(z.string(), z.unknown()).optional(),
});
const updateBody = z
  .strictObject({
    title: z.string().max(10_000).optional(),
    modelId: modelId.nullable().optional(),
    settings: z.record(z.string(), z.unknown()).optional(),
    // Filing (organise.ts): a folder of the user's (null: out of it), pinned, archived.
    folderId: z.string().min(1).max(200).nullable().optional(),
    pinned: z.boolean().optional(),
    archived: z.boolean().optional(),
  })
  .refine((b) => Object.values(b).some((v) => v !== undefined), { message: 'Send title, modelId, settings, folderId, pinned or archived' });

/** An optional 0/1 query parameter. */
function flagParam(url: URL, name: string): boolean | undefined {
  const raw = url.searchParams.get(name);
  if (raw === null || raw === '') return undefined;
  if (raw !== '0' && raw !== '1') throw new ApiError('INVALID_REQUEST', `${name} must be 0 or 1`, { param: name });
  return raw === '1';
}

/** `folder`: a folder id, or `none` for the chats in no folder (absent: any). */
function folderParam(url: URL): string | null | undefined {
  const raw = url.searchParams.get('folder');
  if (raw === null || raw === '') return undefined;
  if (raw.length > 200) throw new ApiError('INVALID_REQUEST', 'folder must be a folder id or none', { param: 'folder' });
  return raw === 'none' ? null : raw;
}

/** An optional positive-integer query parameter (range checked by the store). */
function intParam(url: URL, name: string): number | undefined {
  const raw = url.searchParams.get(name);
  if (raw === null || raw === '') return undefined;
  if (!/^\d{1,6}$/.test(raw)) throw new ApiError('INVALID_REQUEST', `${name} must be a positive integer`, { param: name });
  return Number(raw);
}

/** Web search "on" where there is no search: refused before anything is stored, so no chat is left empty. */
function checkWebSearch(deps: AppDeps, settings: Record<string, unknown> | undefined): void {
  const why = settings?.webSearch === 'on' ? webSearchUnavailable(deps) : null;
  if (why) throw new ApiError('INVALID_REQUEST', `${why} Set the chat's web search to off or auto.`, { param: 'settings.webSearch' });
}

/** A chat's knowledge collections must be the user's own (a deleted one later is skipped when it retrieves). */
async function checkKnowledge(deps: AppDeps, userId: string, settings: { knowledge?: string[] | null } | undefined): Promise<void> {
  const ids = settings?.knowledge ?? [];
  const mine = await deps.svc.knowledge.of(userId).ownedCollections(ids);
  const unknown = ids.find((id) => !mine.includes(id));
  if (unknown !== undefined)
    throw new ApiError('NOT_FOUND', `No knowledge collection ${JSON.stringify(unknown.slice(0, 100))}`, { param: 'settings.knowledge' });
}

function checkTitle(title: string): void {
  const t = cleanLine(title);
  if (t.length < 1 || t.length > TITLE_MAX) throw new ApiError('INVALID_REQUEST', `title must be 1-${TITLE_MAX} characters`, { param: 'title' });
}

const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

export function conversationRoutes(deps: AppDeps) {
  const { store } = deps.svc;
  const catalogue = catalogueSource(deps);

  // Every call is scoped to the session user by construction.
  const opsOf = (s: SessionCtx) => userConversations(store, s.user.id);

  return {
    listConversations: appRoute(deps, 'session', async ({ req, session }) => {
      const ops = opsOf(session);
      const url = new URL(req.url);
      const page = await ops.list({
        limit: intParam(url, 'limit'),
        cursor: url.searchParams.get('cursor') || null,
        folder: folderParam(url),
        pinned: flagParam(url, 'pinned'),
        archived: flagParam(url, 'archived'),
      });
      const body: { items: AppConversation[]; nextCursor: string | null } = { items: page.items.map(toAppConversation), nextCursor: page.nextCursor };
      return json(body);
    }),

    createConversation: appRoute(deps, { auth: 'session+csrf', body: createBody }, async ({ session, body: b }) => {
      const ops = opsOf(session);
      checkWebSearch(deps, b.settings);
      await checkKnowledge(deps, session.user.id, b.settings);
      // A character of this server's (published, or the user's own) begins the chat from a snapshot and its first
      // message; in remote mode a slug unknown here is the remote API's (applied there by character_slug).
      const own = b.characterSlug ? await getCharacter(store, b.characterSlug, { userId: session.user.id }) : undefined;
      const character = own ? characterToApp(own) : b.characterSlug ? await catalogue.character(b.characterSlug) : null;
      // The model: the one asked for (404 when unknown), else the character's own when this server has it, else the default.
      let model: string | null = null;
      if (b.modelId) model = (await catalogue.model(b.modelId)).id;
      else if (character?.modelId) model = (await catalogue.models()).find((m) => m.id === character.modelId)?.id ?? null;
      model ??= (await catalogue.models()).find((m) => m.isDefault)?.id ?? null;
      const c = await ops.create({
        title: b.title,
        modelId: model,
        characterSlug: character?.slug ?? null,
        // A character made to search the web starts its chats with web search on auto, unless the chat says otherwise.
        settings: (own?.webEnabled && b.settings?.webSearch === undefined
          ? { ...b.settings, webSearch: 'auto' }
          : b.settings) as CreateConversationInput['settings'],
      });
      if (own) await beginWithCharacter(store, ops, c.id, session.user, own);
      return json(toAppConversation(c), 201);
    }),

    getConversation: appRoute(deps, 'session', async ({ params, session }) => {
      const ops = opsOf(session);
      const c = await ops.get(params.id);
      const body: AppConversationWithMessages = { ...toAppConversation(c), messages: c.messages.map(toAppMessage) };
      return json(body);
    }),

    updateConversation: appRoute(deps, { auth: 'session+csrf', body: updateBody }, async ({ params, session, body: b }) => {
      const ops = opsOf(session);
      checkWebSearch(deps, b.settings);
      await checkKnowledge(deps, session.user.id, b.settings);
      // Everything that can be refused is checked before the first write, so a bad field changes nothing.
      const model = b.modelId ? (await catalogue.model(b.modelId)).id : b.modelId;
      if (b.title !== undefined) checkTitle(b.title);
      let c = b.settings !== undefined ? await ops.updateSettings(params.id, b.settings as ChatSettingsPatch) : undefined;
      if (model !== undefined) c = await ops.setModel(params.id, model);
      if (b.title !== undefined) c = await ops.rename(params.id, b.title);
      if (b.folderId !== undefined || b.pinned !== undefined || b.archived !== undefined)
        c = await ops.organise(params.id, { folderId: b.folderId, pinned: b.pinned, archived: b.archived });
      return json(toAppConversation(c ?? (await ops.conversation(params.id))));
    }),

    deleteConversation: appRoute(deps, 'session+csrf', async ({ params, session }) => {
      const ops = opsOf(session);
      await ops.remove(params.id);
      return noContent();
    }),

    exportConversation: appRoute(deps, 'session', async ({ req, params, session }) => {
      const ops = opsOf(session);
      const url = new URL(req.url);
      const format = url.searchParams.get('format') || 'md';
      if (format !== 'md' && format !== 'json') throw new ApiError('INVALID_REQUEST', 'format must be md or json', { param: 'format' });
      // The branch on screen (leaf: any message of it; by default the newest), or in JSON every version of every
      // message (branches=all), each with its parentId so the tree can be rebuilt.
      const every = url.searchParams.get('branches') === 'all';
      if (every && format !== 'json') throw new ApiError('INVALID_REQUEST', 'branches=all needs format=json', { param: 'branches' });
      const leaf = url.searchParams.get('leaf') || undefined;
      const whole = await ops.get(params.id);
      if (leaf !== undefined && !whole.messages.some((m) => m.id === leaf)) throw notFound('Message');
      const newest = whole.messages.at(-1)?.id;
      const c = { ...whole, messages: every ? whole.messages : leaf ? branchThrough(whole.messages, leaf) : newest ? pathTo(whole.messages, newest) : [] };
      return new Response(format === 'md' ? exportMarkdown(c) : exportJson(c), {
        headers: {
          'content-type': format === 'md' ? 'text/markdown; charset=utf-8' : 'application/json; charset=utf-8',
          'content-disposition': contentDisposition(fileStem(c.title), format, { suffix: ` ${isoDay(c.createdAt)}`, fallback: 'conversation' }),
          'cache-control': 'no-store',
          'x-content-type-options': 'nosniff',
        },
      });
    }),

    // Every chat in one zip (archive.ts), streamed while it is made.
    exportAllConversations: appRoute(deps, 'session', async ({ session }) => {
      return new Response(archiveStream(store, session.user.id), {
        headers: {
          'content-type': 'application/zip',
          'content-disposition': contentDisposition('lagoon-chats', 'zip', { suffix: ` ${isoDay(Date.now())}` }),
          'cache-control': 'no-store',
          'x-content-type-options': 'nosniff',
        },
      });
    }),

    search: appRoute(deps, 'session', async ({ req, session }) => {
      const ops = opsOf(session);
      const url = new URL(req.url);
      const q = cleanLine(url.searchParams.get('q') ?? '');
      // An empty box is no search: nothing matches, rather than a 400 while the user is still typing.
      const folder = folderParam(url);
      if (folder === null) throw new ApiError('INVALID_REQUEST', 'folder must be a folder id', { param: 'folder' });
      const hits = q ? await ops.search(q, { limit: intParam(url, 'limit'), folder }) : [];
      const body: { hits: AppSearchHit[] } = {
        hits: hits.map((h) => ({ conversation: toAppConversation(h.conversation), snippet: h.snippet, messageId: h.messageId })),
      };
      return json(body);
    }),
  };
}
