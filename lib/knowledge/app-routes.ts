// The knowledge app API: collections (list, create, read with their files, rename, delete), files (upload, delete)
// and search (what a chat would retrieve, with each ranking's place). Every lookup is the session user's own.
import { z } from 'zod';
import type { AppDeps } from '../http/app-deps.ts';
import { appRoute, json, noContent } from '../http/app-route.ts';
import { KNOWLEDGE_ACCEPT, MAX_KNOWLEDGE_FILE_BYTES, UPLOAD_BODY_LIMIT } from './upload.ts';
import type { AppKnowledgeCollectionDetail } from './wire.ts';

const nameSchema = z.strictObject({ name: z.string().trim().min(1, 'Name the collection').max(200) });
const uploadSchema = z.strictObject({ name: z.string().min(1).max(4096), type: z.string().max(255).optional(), dataUrl: z.string().min(5) });
const searchSchema = z.strictObject({
  collections: z.array(z.string().min(1).max(100)).min(1).max(10),
  query: z.string().trim().min(1, 'Write what to look for').max(8000),
  limit: z.number().int().min(1).max(50).optional(),
});

export function knowledgeRoutes(deps: AppDeps) {
  const k = () => deps.svc.knowledge;

  return {
    knowledgeCollections: appRoute(deps, 'session', async ({ session: { user } }) =>
      json({
        collections: await k().of(user.id).collections(),
        embeddingModel: k().embeddingModel ?? null,
        accept: KNOWLEDGE_ACCEPT,
        maxFileBytes: MAX_KNOWLEDGE_FILE_BYTES,
      }),
    ),
    createKnowledgeCollection: appRoute(deps, { auth: 'session+csrf', body: nameSchema }, async ({ session: { user }, body }) =>
      json(await k().of(user.id).create(body.name), 201),
    ),
    knowledgeCollection: appRoute(deps, 'session', async ({ params, session: { user } }) => {
      const mine = k().of(user.id);
      const out: AppKnowledgeCollectionDetail = { collection: await mine.collection(params.id ?? ''), files: await mine.files(params.id ?? '') };
      return json(out);
    }),
    renameKnowledgeCollection: appRoute(deps, { auth: 'session+csrf', body: nameSchema }, async ({ params, session: { user }, body }) =>
      json(
        await k()
          .of(user.id)
          .rename(params.id ?? '', body.name),
      ),
    ),
    deleteKnowledgeCollection: appRoute(deps, 'session+csrf', async ({ params, session: { user } }) => {
      await k()
        .of(user.id)
        .remove(params.id ?? '');
      return noContent();
    }),
    uploadKnowledgeFile: appRoute(
      deps,
      { auth: 'session+csrf', body: uploadSchema, bodyLimit: UPLOAD_BODY_LIMIT },
      async ({ params, session: { user }, body }) => json(await k().upload(user.id, params.id ?? '', body), 201),
    ),
    deleteKnowledgeFile: appRoute(deps, 'session+csrf', async ({ params, session: { user } }) => {
      await k()
        .of(user.id)
        .removeFile(params.id ?? '', params.fileId ?? '');
      return noContent();
    }),
    searchKnowledge: appRoute(deps, { auth: 'session+csrf', body: searchSchema }, async ({ session: { user }, body, signal }) =>
      json(await k().search(user.id, body.collections, body.query, { limit: body.limit, signal })),
    ),
  };
}
