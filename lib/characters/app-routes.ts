// The characters app API (issue 19): browse, read, create, edit, publish, delete, avatars; reviews, cards and the
// editor's preview are in characters-*.ts and merged here. Reads show published characters and the caller's own;
// writes need the owner (lib/characters/app-access.ts).
import { z } from 'zod';
import { ApiError } from '../api/errors.ts';
import { queryObject } from '../api/query.ts';
import { type CharacterQuery, countCharacters, listCharacters } from './characters.ts';
import { AVATAR_TYPES, resizeAvatar } from './avatar.ts';
import { AVATAR_MAX_BYTES } from './limits.ts';
import { reviewOf } from './reviews.ts';
import { createCharacter, deleteCharacter, getAvatar, setAvatar, updateCharacter } from './store.ts';
import { createSchema, draftOf, parseInput, patchSchema } from './validate.ts';
import type { AppDeps } from '../http/app-deps.ts';
import { appRoute, json, noContent, readBytes } from '../http/app-route.ts';
import { characterToAppRemote } from './app-remote.ts';
import { cardRoutes } from './app-cards.ts';
import { mediaType, ownedCharacter, viewerOf, visibleCharacter } from './app-access.ts';
import type { CharacterSummary } from './wire.ts';
import { toDetail, toSummary } from './app-present.ts';
import { reviewRoutes } from './app-reviews.ts';
import { catalogueSource, isRemote } from '../catalogue/sources.ts';
import { CHARACTER_QUERY_MAX } from '../catalogue/source.ts';
import { intParam } from '../api/dash-query.ts';

const BODY_LIMIT = 64 * 1024;
const SORTS = { popular: 'popular', new: 'new', top: 'top' } as const;

const listQuery = z.strictObject({
  q: z.string().trim().max(CHARACTER_QUERY_MAX).optional(),
  tags: z.string().max(600).optional(),
  sort: z.enum(['popular', 'new', 'top']).optional(),
  scope: z.enum(['all', 'mine']).optional(),
  page: intParam(1, 100_000, 1),
  limit: intParam(1, 100, 24),
});

export function characterRoutes(deps: AppDeps) {
  const { store } = deps.svc;
  const remote = isRemote(deps);

  return {
    characters: appRoute(deps, 'session', async ({ req, session: { user } }) => {
      const p = parseInput(listQuery, queryObject(new URL(req.url)));
      const tags = (p.tags ?? '')
        .split(',')
        .map((t) => t.trim().toLowerCase())
        .filter(Boolean);
      const q: Omit<CharacterQuery, 'limit' | 'offset'> = {
        search: p.q || undefined,
        tags,
        viewer: viewerOf(user),
        mineOnly: p.scope === 'mine',
        // In remote mode the server's own characters are the remote API's (listed after the local ones below).
        ownedOnly: remote,
        sort: p.sort ? SORTS[p.sort] : 'featured',
      };
      const offset = (p.page - 1) * p.limit;
      const [local, total] = await Promise.all([listCharacters(store, { ...q, limit: p.limit, offset }), countCharacters(store, q)]);
      const characters: CharacterSummary[] = local.map(toSummary);
      let all = total;
      if (remote && p.scope !== 'mine') {
        const fromRemote = (await catalogueSource(deps).characters(p.q)).filter((c) => tags.every((t) => c.tags.includes(t)));
        all += fromRemote.length;
        const start = Math.max(0, offset - total);
        characters.push(...fromRemote.slice(start, start + p.limit - local.length).map(characterToAppRemote));
      }
      return json({ characters, page: p.page, total: all });
    }),

    getCharacter: appRoute(deps, 'session', async ({ params, session: { user } }) => {
      const c = await visibleCharacter(store, params.slug, user);
      return json({ character: toDetail(c, user.id, await reviewOf(store, c.id, user.id)) });
    }),

    createCharacter: appRoute(deps, { auth: 'session+csrf', body: createSchema, bodyLimit: BODY_LIMIT }, async ({ session: { user }, body: b }) => {
      const c = await createCharacter(store, user.id, draftOf(b));
      return json({ character: toDetail(c, user.id, undefined) }, 201);
    }),

    updateCharacter: appRoute(deps, { auth: 'session+csrf', body: patchSchema, bodyLimit: BODY_LIMIT }, async ({ params, session: { user }, body: b }) => {
      const c = await updateCharacter(store, await ownedCharacter(store, params.slug, user), b);
      return json({ character: toDetail(c, user.id, await reviewOf(store, c.id, user.id)) });
    }),

    deleteCharacter: appRoute(deps, 'session+csrf', async ({ params, session: { user } }) => {
      await deleteCharacter(store, await ownedCharacter(store, params.slug, user));
      return noContent();
    }),

    putCharacterAvatar: appRoute(deps, 'session+csrf', async ({ req, params, session: { user } }) => {
      const c = await ownedCharacter(store, params.slug, user);
      const type = mediaType(req);
      if (!(AVATAR_TYPES as readonly string[]).includes(type))
        throw new ApiError('INVALID_CONTENT_TYPE', `The avatar must be sent as ${AVATAR_TYPES.join(', ')}, not ${type || 'no content-type'}`);
      const bytes = await readBytes(req, AVATAR_MAX_BYTES);
      if (!bytes.length) throw new ApiError('INVALID_REQUEST', 'The avatar is empty');
      const updated = await setAvatar(store, c, await resizeAvatar(bytes));
      return json({ character: toDetail(updated, user.id, await reviewOf(store, c.id, user.id)) });
    }),

    characterAvatar: appRoute(deps, 'session', async ({ params, session: { user } }) => {
      const a = await getAvatar(store, params.slug, viewerOf(user));
      if (!a) throw new ApiError('NOT_FOUND', 'This character has no avatar');
      // Private to the session (a private character's avatar must not sit in a shared cache); the URL is versioned.
      return new Response(new Uint8Array(a.data), {
        headers: { 'content-type': a.contentType, 'cache-control': 'private, max-age=86400', 'x-content-type-options': 'nosniff' },
      });
    }),

    ...reviewRoutes(deps),
    ...cardRoutes(deps),
  };
}
