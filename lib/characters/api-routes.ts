// GET /characters, GET /characters/{slug} and GET /characters/{slug}/reviews in the public shapes. A key sees the
// published characters and those of its own account's user; another user's private character is a 404.
// GET /characters/{slug}/photo serves a published character's uploaded avatar to anyone, for `photoUrl`.
import { z } from 'zod';
import { createHash } from 'node:crypto';
import { ApiError } from '../api/errors.ts';
import { averageRating, type CharacterSort, characterRecord, getCharacter, listCharacters } from './characters.ts';
import { listReviews, ratingByAccount, reviewAccounts } from './reviews.ts';
import { getAvatar } from './store.ts';
import { principalOf, type RequestCtx } from '../http/context.ts';
import { json, raw, type Reply } from '../http/reply.ts';
import type { ApiInput } from '../http/route.ts';

const boolString = z.enum(['true', 'false']).transform((v) => v === 'true');
const list = (max: number) => z.array(z.string().max(64)).max(max);
const SORT_BY: Record<string, CharacterSort> = {
  featured: 'featured',
  highestRating: 'top',
  highlyRated: 'top',
  highlyRatedAndRecent: 'top',
  imports: 'popular',
  mostRecent: 'new',
  ratingCount: 'ratingCount',
};
const listQuery = z.strictObject({
  search: z.string().max(200).optional(),
  tags: list(20).optional(),
  // The public API's categories are tags here; isPro filters nothing (no character is "pro" on this server).
  categories: list(20).optional(),
  modelId: list(20).optional(),
  isAdult: boolString.optional(),
  isPro: boolString.optional(),
  isWebEnabled: boolString.optional(),
  sortBy: z.enum(Object.keys(SORT_BY) as [string, ...string[]]).optional(),
  sortOrder: z.enum(['asc', 'desc']).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(50),
  offset: z.coerce.number().int().min(0).default(0),
});
const LISTS = new Set(['tags', 'categories', 'modelId']);

const reviewsSchema = z.strictObject({
  page: z.coerce.number().int().min(1).max(1_000_000).default(1),
  pageSize: z.coerce.number().int().min(1).max(100).default(20),
});

/** The client's parameters, whatever their names: `name[]` and repeated or comma-separated lists as arrays. */
function rawQuery(url: URL): Record<string, unknown> {
  const sp = url.searchParams;
  const raw: Record<string, unknown> = Object.create(null);
  for (const key of new Set(sp.keys())) {
    const name = key.replace(/\[\]$/, '');
    raw[name] = LISTS.has(name)
      ? sp
          .getAll(key)
          .flatMap((t) => t.split(','))
          .map((t) => t.trim())
          .filter(Boolean)
      : sp.get(key);
  }
  return raw;
}

/** The list's parameters, lists given as `tags[]=a&tags[]=b`, repeated or comma-separated. */
export const charactersQuery = { read: rawQuery, schema: listQuery };
export const reviewsQuery = { read: rawQuery, schema: reviewsSchema };

export async function listCharactersRoute(ctx: RequestCtx, { query: q }: ApiInput<unknown, z.output<typeof listQuery>>): Promise<Reply> {
  const { accountId } = principalOf(ctx);
  const found = await listCharacters(ctx.svc.store, {
    search: q.search?.replace(/^#/, ''),
    tags: [...(q.tags ?? []), ...(q.categories ?? [])],
    modelIds: q.modelId,
    isAdult: q.isAdult,
    isWebEnabled: q.isWebEnabled,
    viewer: { accountId },
    sort: q.sortBy ? SORT_BY[q.sortBy] : 'featured',
    order: q.sortOrder,
    limit: q.limit,
    offset: q.offset,
  });
  const origin = ctx.svc.wallet.url('');
  const data = await Promise.all(found.map(async (c) => characterRecord(c, await ratingByAccount(ctx.svc.store, c.id, accountId), origin)));
  return json({ object: 'list', data });
}

async function visible(ctx: RequestCtx) {
  const { accountId } = principalOf(ctx);
  const c = await getCharacter(ctx.svc.store, ctx.params.slug, { accountId });
  if (!c) throw new ApiError('CHARACTER_NOT_FOUND', `Character "${ctx.params.slug}" not found`);
  return { c, accountId };
}

export async function getCharacterRoute(ctx: RequestCtx): Promise<Reply> {
  const { c, accountId } = await visible(ctx);
  return json({ object: 'character', data: characterRecord(c, await ratingByAccount(ctx.svc.store, c.id, accountId), ctx.svc.wallet.url('')) });
}

export async function characterReviewsRoute(ctx: RequestCtx, { query: q }: ApiInput<unknown, z.output<typeof reviewsSchema>>): Promise<Reply> {
  const { c, accountId } = await visible(ctx);
  const { reviews, total } = await listReviews(ctx.svc.store, c.id, q.page, q.pageSize);
  const accounts = await reviewAccounts(ctx.svc.store, reviews);
  const totalPages = Math.ceil(total / q.pageSize);
  Object.assign(ctx.extraHeaders, {
    'x-pagination-limit': String(q.pageSize),
    'x-pagination-page': String(q.page),
    'x-pagination-total': String(total),
    'x-pagination-total-pages': String(totalPages),
  });
  return json({
    object: 'list',
    data: reviews.map((r) => ({
      id: r.id,
      characterId: c.id,
      rating: r.rating,
      message: r.text || null,
      locale: null,
      username: r.authorName.trim() || 'Anonymous',
      userAvatarUrl: null,
      isOwner: accounts.get(r.userId) === accountId,
      createdAt: new Date(r.createdAt).toISOString(),
    })),
    pagination: { page: q.page, pageSize: q.pageSize, total, totalPages },
    summary: { averageRating: averageRating(c.stats), totalReviews: c.stats.ratingCount },
  });
}

/**
 * A published character's uploaded avatar, with no key (an <img> or a client cache fetches it): 404 for an unknown
 * slug, a private character, or one without an upload. Shared caches may keep it for a few minutes, so an unpublished
 * avatar stops being served soon; the ETag (its bytes' digest) makes revalidation a 304.
 */
export async function characterPhotoRoute(ctx: RequestCtx): Promise<Reply> {
  const avatar = await getAvatar(ctx.svc.store, ctx.params.slug, {});
  if (!avatar) throw new ApiError('NOT_FOUND', `Character "${ctx.params.slug}" has no published photo`);
  const etag = `"${createHash('sha256').update(avatar.data).digest('base64url').slice(0, 27)}"`;
  const headers = { etag, 'cache-control': PHOTO_CACHE, vary: 'Accept-Encoding' };
  if (ifNoneMatch(ctx.req.headers['if-none-match'], etag)) return raw(headers, undefined, 304);
  return raw({ ...headers, 'content-type': avatar.contentType, 'content-length': String(avatar.data.length) }, avatar.data);
}

const PHOTO_CACHE = 'public, max-age=300';

/** Whether an If-None-Match header (a list, or `*`) matches the ETag, weak forms included. */
function ifNoneMatch(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((t) => {
    const tag = t.trim();
    return tag === '*' || tag === etag || tag === `W/${etag}`;
  });
}
