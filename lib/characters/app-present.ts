// The conversions from the characters domain into the app API's shapes (lib/characters/wire.ts).
import { averageRating, type Character } from './characters.ts';
import type { Review } from './reviews.ts';
import type { CharacterDetail, CharacterReview, CharacterSummary } from './wire.ts';
import { safePhotoUrl } from '../catalogue/source.ts';

const displayName = (name: string | null | undefined) => name?.trim() || 'Anonymous';

export const avatarUrlOf = (c: Character): string | null =>
  c.avatarType ? `/api/app/characters/${encodeURIComponent(c.slug)}/avatar?v=${c.updatedAt}` : safePhotoUrl(c.photoUrl);

export function toSummary(c: Character): CharacterSummary {
  const avatarUrl = avatarUrlOf(c);
  return {
    slug: c.slug,
    name: c.name,
    description: c.description ?? '',
    tags: [...c.tags],
    avatarUrl,
    photoUrl: avatarUrl,
    modelId: c.modelId,
    visibility: c.visibility,
    adult: c.adult,
    owner: c.ownerUserId ? { name: displayName(c.ownerName) } : null,
    stats: { averageRating: c.stats.ratingCount ? averageRating(c.stats) : null, ratingCount: c.stats.ratingCount, chats: c.stats.chats },
    createdAt: c.createdAt,
    updatedAt: c.updatedAt,
  };
}

export const toReview = (r: Review, viewerId: string): CharacterReview => ({
  id: r.id,
  rating: r.rating,
  text: r.text,
  author: { name: displayName(r.authorName) },
  createdAt: r.createdAt,
  updatedAt: r.updatedAt,
  isMine: r.userId === viewerId,
});

export function toDetail(c: Character, viewerId: string, mine: Review | undefined): CharacterDetail {
  return {
    ...toSummary(c),
    instructions: c.systemPrompt,
    firstMessage: c.firstMessage,
    exampleDialogue: c.exampleDialogue,
    temperature: c.temperature,
    webEnabled: c.webEnabled,
    isOwner: c.ownerUserId === viewerId,
    myReview: mine ? toReview(mine, viewerId) : null,
  };
}
