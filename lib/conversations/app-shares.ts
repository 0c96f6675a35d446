// Share links (shares.ts): the owner makes one for the branch on screen, lists and revokes them; anyone with the link
// reads the snapshot and its images (no session: `auth: 'none'`, the token is the only key); a signed-in reader
// copies it into a new chat. Private (end-to-end encrypted) chats are not conversations here: they cannot be shared.
import { z } from 'zod';
import { ApiError } from '../api/errors.ts';
import type { AppDeps } from '../http/app-deps.ts';
import { appRoute, json, noContent } from '../http/app-route.ts';
import { catalogueSource } from '../catalogue/sources.ts';
import { toAppConversation } from './present.ts';
import { continueShare, openShare, shareFile, userShares } from './shares.ts';
import type { AppShare, AppShareList, AppSharedChat } from './wire-shares.ts';

const APP_PREFIX = '/api/app';
const createBody = z.strictObject({ leafId: z.string().min(1).max(200) });
/** What a shared page's answers carry: no index, no cache shared between users, no sniffing. */
const PUBLIC = { 'x-robots-tag': 'noindex, nofollow', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' };

export function shareRoutes(deps: AppDeps) {
  const { store } = deps.svc;
  const catalogue = catalogueSource(deps);

  return {
    createShare: appRoute(deps, { auth: 'session+csrf', body: createBody }, async ({ params, session: { user }, body }) => {
      const share: AppShare = await userShares(store, user.id).create(params.id ?? '', body.leafId);
      return json(share, 201);
    }),

    listShares: appRoute(deps, 'session', async ({ req, session: { user } }) => {
      const conversation = new URL(req.url).searchParams.get('conversation');
      if (conversation !== null && (conversation.length < 1 || conversation.length > 200))
        throw new ApiError('INVALID_REQUEST', 'conversation must be a conversation id', { param: 'conversation' });
      const body: AppShareList = { items: await userShares(store, user.id).list(conversation ? { conversationId: conversation } : {}) };
      return json(body);
    }),

    revokeShare: appRoute(deps, 'session+csrf', async ({ params, session: { user } }) => {
      await userShares(store, user.id).revoke(params.token ?? '');
      return noContent();
    }),

    openShare: appRoute(deps, 'none', async ({ params }) => {
      const body: AppSharedChat = await openShare(store, params.token ?? '', APP_PREFIX);
      return json(body, 200, PUBLIC);
    }),

    shareFile: appRoute(deps, 'none', async ({ params }) => {
      const f = await shareFile(store, params.token ?? '', params.n ?? '');
      // An image only, never rendered as a document (a snapshot's images were checked image types when stored).
      return new Response(new Uint8Array(f.data), {
        headers: { ...PUBLIC, 'content-type': f.type, 'content-security-policy': "default-src 'none'; sandbox", 'cache-control': 'private, max-age=300' },
      });
    }),

    continueShare: appRoute(deps, 'session+csrf', async ({ params, session: { user } }) => {
      const chat = await openShare(store, params.token ?? '', APP_PREFIX);
      // The shared chat's model when this server still offers it; otherwise the default.
      const models = await catalogue.models();
      const model = models.find((m) => m.id === chat.modelId)?.id ?? models.find((m) => m.isDefault)?.id ?? null;
      const c = await continueShare(store, params.token ?? '', user.id, model);
      return json(toAppConversation(c), 201);
    }),
  };
}
