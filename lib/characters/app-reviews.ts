// Reviews in the app: a page of a character's reviews, the caller's own (one per user: PUT writes or rewrites it,
// DELETE removes it), and the operator's moderation (unpublish anyone's character, remove any review).
import { z } from 'zod';
import { recordAudit } from '../accounts/operator.ts';
import { ApiError } from '../api/errors.ts';
import { findCharacter, findCharacterById } from './characters.ts';
import { CHARACTER_LIMITS } from './limits.ts';
import { getReview, listReviews, putReview, removeReview, reviewOf } from './reviews.ts';
import { setVisibility } from './store.ts';
import { cleanText } from './validate.ts';
import type { Store } from '../db/store.ts';
import { getUser, type User } from '../users/users.ts';
import type { AppDeps } from '../http/app-deps.ts';
import { appRoute, json, noContent } from '../http/app-route.ts';
import { visibleCharacter } from './app-access.ts';
import { toDetail, toReview } from './app-present.ts';
import { intParam, queryOf } from '../api/dash-query.ts';

const PAGE_SIZE = 20;
const pageQuery = z.strictObject({ page: intParam(1, 100_000, 1), limit: intParam(1, 100, PAGE_SIZE) });
const reviewBody = z.strictObject({
  rating: z.number().int('must be a whole number of stars').min(1, 'must be 1 to 5').max(5, 'must be 1 to 5'),
  text: z
    .string()
    .transform(cleanText)
    .pipe(z.string().max(CHARACTER_LIMITS.reviewText, `must be at most ${CHARACTER_LIMITS.reviewText} characters`))
    .optional(),
});

/** The most of a removed review's text the audit entry keeps. */
const AUDIT_TEXT_CHARS = 200;

/**
 * One moderation entry in the operator audit log, under the account of the user it affected (the character's owner,
 * the review's author); a server-owned character has none, and is recorded with an empty account id.
 */
async function auditModeration(
  store: Store,
  actor: User,
  action: 'character_unpublish' | 'review_remove',
  userId: string | null,
  details: Record<string, unknown>,
) {
  const affected = userId ? await getUser(store, userId) : undefined;
  await recordAudit(store, { actorUserId: actor.id, actor: actor.email, action, accountId: affected?.accountId ?? '', details });
}

export function reviewRoutes(deps: AppDeps) {
  const { store } = deps.svc;
  return {
    characterReviews: appRoute(deps, 'session', async ({ req, params, session: { user } }) => {
      const c = await visibleCharacter(store, params.slug, user);
      const p = queryOf(deps, pageQuery, req);
      const { reviews, total } = await listReviews(store, c.id, p.page, p.limit);
      return json({ reviews: reviews.map((r) => toReview(r, user.id)), page: p.page, total });
    }),

    putCharacterReview: appRoute(deps, { auth: 'session+csrf', body: reviewBody, bodyLimit: 16 * 1024 }, async ({ params, session: { user }, body: b }) => {
      const c = await visibleCharacter(store, params.slug, user);
      const review = await putReview(store, c.id, user.id, b.rating, b.text ?? '');
      return json({ review: toReview(review, user.id) });
    }),

    deleteCharacterReview: appRoute(deps, 'session+csrf', async ({ params, session: { user } }) => {
      const c = await visibleCharacter(store, params.slug, user);
      const mine = await reviewOf(store, c.id, user.id);
      if (!mine) throw new ApiError('NOT_FOUND', 'You have not reviewed this character');
      await removeReview(store, mine);
      return noContent();
    }),

    operatorUnpublishCharacter: appRoute(deps, 'operator+csrf', async ({ params, session: { user } }) => {
      const c = await findCharacter(store, params.slug);
      if (!c) throw new ApiError('CHARACTER_NOT_FOUND', `Character "${params.slug}" not found`);
      const updated = await setVisibility(store, c, 'private');
      // Only a change is audited: unpublishing a private character again moderates nothing.
      if (c.visibility !== 'private') {
        await auditModeration(store, user, 'character_unpublish', c.ownerUserId, { slug: c.slug, name: c.name });
      }
      return json({ character: toDetail(updated, user.id, undefined) });
    }),

    operatorDeleteReview: appRoute(deps, 'operator+csrf', async ({ params, session: { user } }) => {
      const r = await getReview(store, params.id);
      if (!r) throw new ApiError('NOT_FOUND', 'Review not found');
      if (await removeReview(store, r)) {
        const c = await findCharacterById(store, r.characterId);
        await auditModeration(store, user, 'review_remove', r.userId, {
          slug: c?.slug ?? null,
          character: c?.name ?? null,
          author: r.authorName,
          rating: r.rating,
          // Enough of the text to recognise it later; the review itself is gone.
          text: r.text.slice(0, AUDIT_TEXT_CHARS),
        });
      }
      return noContent();
    }),
  };
}
