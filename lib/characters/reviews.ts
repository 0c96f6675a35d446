// Reviews: one per (user, character), a rating of 1-5 and optional text, editable by its author and removable by
// its author or the operator. The character's rating count and sum are recomputed in the same transaction, so the
// stats browse sorts by always agree with the reviews.
import { randomUUID } from 'node:crypto';
import type { Queryable, Store } from '../db/store.ts';

export interface Review {
  id: string;
  characterId: string;
  userId: string;
  authorName: string;
  rating: number;
  text: string;
  createdAt: number;
  updatedAt: number;
}

interface ReviewRow {
  id: string;
  character_id: string;
  user_id: string;
  display_name: string | null;
  rating: number;
  text: string;
  created_at: number;
  updated_at: number;
}

const SELECT = `SELECT r.id, r.character_id, r.user_id, u.display_name, r.rating, r.text, r.created_at, r.updated_at
  FROM character_reviews r LEFT JOIN users u ON u.id = r.user_id`;

const toReview = (r: ReviewRow): Review => ({
  id: r.id,
  characterId: r.character_id,
  userId: r.user_id,
  authorName: r.display_name ?? '',
  rating: Number(r.rating),
  text: r.text,
  createdAt: Number(r.created_at),
  updatedAt: Number(r.updated_at),
});

async function refreshStats(q: Queryable, characterId: string): Promise<void> {
  await q.run(
    `UPDATE characters SET
       rating_count = (SELECT COUNT(*) FROM character_reviews WHERE character_id = $1),
       rating_sum = (SELECT COALESCE(SUM(rating), 0) FROM character_reviews WHERE character_id = $1)
     WHERE id = $1`,
    [characterId],
  );
}

/** Writes the user's review of the character (a second one replaces the first). */
export async function putReview(store: Store, characterId: string, userId: string, rating: number, text: string, now = Date.now()): Promise<Review> {
  return store.tx(async (q) => {
    await q.run(
      `INSERT INTO character_reviews (id, character_id, user_id, rating, text, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $6)
       ON CONFLICT (character_id, user_id) DO UPDATE SET rating = excluded.rating, text = excluded.text, updated_at = excluded.updated_at`,
      [randomUUID(), characterId, userId, rating, text, now],
    );
    await refreshStats(q, characterId);
    const row = await q.get<ReviewRow>(`${SELECT} WHERE r.character_id = $1 AND r.user_id = $2`, [characterId, userId]);
    return toReview(row!);
  });
}

export async function reviewOf(store: Queryable, characterId: string, userId: string): Promise<Review | undefined> {
  const row = await store.get<ReviewRow>(`${SELECT} WHERE r.character_id = $1 AND r.user_id = $2`, [characterId, userId]);
  return row && toReview(row);
}

export async function getReview(store: Queryable, id: string): Promise<Review | undefined> {
  const row = await store.get<ReviewRow>(`${SELECT} WHERE r.id = $1`, [id]);
  return row && toReview(row);
}

/** Removes one review (the author's own, or any for the operator: the caller decides); false when there was none. */
export async function removeReview(store: Store, review: Pick<Review, 'id' | 'characterId'>): Promise<boolean> {
  return store.tx(async (q) => {
    const n = await q.run('DELETE FROM character_reviews WHERE id = $1', [review.id]);
    await refreshStats(q, review.characterId);
    return n > 0;
  });
}

/** A page of the character's reviews, newest first, and how many it has in all. */
export async function listReviews(store: Queryable, characterId: string, page: number, pageSize: number): Promise<{ reviews: Review[]; total: number }> {
  const total = await store.get<{ n: number }>('SELECT COUNT(*) AS n FROM character_reviews WHERE character_id = $1', [characterId]);
  const rows = await store.all<ReviewRow>(`${SELECT} WHERE r.character_id = $1 ORDER BY r.created_at DESC, r.id LIMIT $2 OFFSET $3`, [
    characterId,
    pageSize,
    (page - 1) * pageSize,
  ]);
  return { reviews: rows.map(toReview), total: Number(total?.n ?? 0) };
}

/** The rating a user of `accountId` gave the character (the public API's `userRating`), or null. */
export async function ratingByAccount(store: Queryable, characterId: string, accountId: string): Promise<number | null> {
  const row = await store.get<{ rating: number }>(
    'SELECT r.rating FROM character_reviews r JOIN users u ON u.id = r.user_id WHERE r.character_id = $1 AND u.account_id = $2',
    [characterId, accountId],
  );
  return row ? Number(row.rating) : null;
}

/** The account of each review's author, for the public API's `isOwner`. */
export async function reviewAccounts(store: Queryable, reviews: Review[]): Promise<Map<string, string>> {
  const ids = [...new Set(reviews.map((r) => r.userId))];
  if (!ids.length) return new Map();
  const rows = await store.all<{ id: string; account_id: string }>(
    `SELECT id, account_id FROM users WHERE id IN (${ids.map((_, i) => `$${i + 1}`).join(', ')})`,
    ids,
  );
  return new Map(rows.map((r) => [r.id, r.account_id]));
}
