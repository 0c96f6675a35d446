// The chat folders' routes: list, create, rename, delete (its chats move out of it, kept). Filing a chat into one is
// PATCH /conversations/:id {folderId}. Every call goes through userFolders(store, <session user>).
import { z } from 'zod';
import type { AppDeps } from '../http/app-deps.ts';
import { appRoute, json, noContent } from '../http/app-route.ts';
import type { AppFolder, AppFolderList } from '../wire.ts';
import { type Folder, MAX_FOLDERS, userFolders } from './folders.ts';

const nameBody = z.strictObject({ name: z.string().max(10_000) });
const toApp = (f: Folder): AppFolder => ({ id: f.id, name: f.name, createdAt: f.createdAt });

export function folderRoutes(deps: AppDeps) {
  const { store } = deps.svc;
  return {
    listFolders: appRoute(deps, 'session', async ({ session }) => {
      const body: AppFolderList = { items: (await userFolders(store, session.user.id).list()).map(toApp), max: MAX_FOLDERS };
      return json(body);
    }),
    createFolder: appRoute(deps, { auth: 'session+csrf', body: nameBody }, async ({ session, body }) => {
      return json(toApp(await userFolders(store, session.user.id).create(body.name)), 201);
    }),
    renameFolder: appRoute(deps, { auth: 'session+csrf', body: nameBody }, async ({ params, session, body }) => {
      return json(toApp(await userFolders(store, session.user.id).rename(params.id ?? '', body.name)));
    }),
    deleteFolder: appRoute(deps, 'session+csrf', async ({ params, session }) => {
      await userFolders(store, session.user.id).remove(params.id ?? '');
      return noContent();
    }),
  };
}
