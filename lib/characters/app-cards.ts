// Character cards in the app: import (a V2/V3 card as JSON, or a PNG carrying one; the PNG becomes the avatar) and
// export of one's own character in either version, as JSON or as PNG with the card in its metadata.
import { z } from 'zod';
import { ApiError } from '../api/errors.ts';
import { avatarPng, resizeAvatar } from './avatar.ts';
import { type CardVersion, cardOf, draftFromJson, draftFromPng } from './cards.ts';
import { CARD_JSON_MAX_BYTES, CARD_PNG_MAX_BYTES } from './limits.ts';
import { isPng, withTextChunks } from './png.ts';
import { createCharacter, getAvatar } from './store.ts';
import type { AppDeps } from '../http/app-deps.ts';
import { appRoute, json, readBytes } from '../http/app-route.ts';
import { mediaType, ownedCharacter, viewerOf } from './app-access.ts';
import { toDetail } from './app-present.ts';
import { queryOf } from '../api/dash-query.ts';
import { contentDisposition, fileStem } from '../conversations/app-download.ts';

const JSON_TYPES = new Set(['application/json', 'text/plain']);
const exportQuery = z.strictObject({ format: z.enum(['v2', 'v3']).default('v2'), as: z.enum(['json', 'png']).default('json') });

export function cardRoutes(deps: AppDeps) {
  const { store } = deps.svc;
  return {
    importCharacter: appRoute(deps, 'session+csrf', async ({ req, session: { user } }) => {
      const type = mediaType(req);
      const png = type === 'image/png';
      if (!png && !JSON_TYPES.has(type) && type !== 'application/octet-stream')
        throw new ApiError('INVALID_CONTENT_TYPE', `Send the card as application/json or image/png, not ${type || 'no content-type'}`);
      const bytes = await readBytes(req, png || type === 'application/octet-stream' ? CARD_PNG_MAX_BYTES : CARD_JSON_MAX_BYTES);
      if (!bytes.length) throw new ApiError('INVALID_REQUEST', 'The card is empty');
      if (isPng(bytes)) {
        const { draft } = draftFromPng(bytes);
        const avatar = await resizeAvatar(bytes);
        return json({ character: toDetail(await createCharacter(store, user.id, draft, avatar), user.id, undefined) }, 201);
      }
      if (png) throw new ApiError('INVALID_REQUEST', 'The PNG file is malformed: it does not start with the PNG signature');
      const { draft } = draftFromJson(bytes.toString('utf8'));
      return json({ character: toDetail(await createCharacter(store, user.id, draft), user.id, undefined) }, 201);
    }),

    exportCharacter: appRoute(deps, 'session', async ({ req, params, session: { user } }) => {
      const c = await ownedCharacter(store, params.slug, user);
      const q = queryOf(deps, exportQuery, req);
      const card = cardOf(c, q.format as CardVersion);
      const stem = fileStem(c.name, 'character');
      const headers = { 'x-content-type-options': 'nosniff' };
      if (q.as === 'json') {
        return json(card, 200, { ...headers, 'content-disposition': contentDisposition(stem, 'json', { suffix: `.card-${q.format}`, fallback: 'character' }) });
      }
      const b64 = (v: unknown) => Buffer.from(JSON.stringify(v), 'utf8').toString('base64');
      // A V3 PNG carries the V2 card too, for readers that know only `chara`.
      const chunks =
        q.format === 'v3'
          ? [
              { keyword: 'chara', text: b64(cardOf(c, 'v2')) },
              { keyword: 'ccv3', text: b64(card) },
            ]
          : [{ keyword: 'chara', text: b64(card) }];
      const png = withTextChunks(await avatarPng(await getAvatar(store, c.slug, viewerOf(user))), chunks);
      return new Response(new Uint8Array(png), {
        headers: {
          ...headers,
          'content-type': 'image/png',
          'cache-control': 'no-store',
          'content-disposition': contentDisposition(stem, 'png', { suffix: `.card-${q.format}`, fallback: 'character' }),
        },
      });
    }),
  };
}
