// Who may do what with a character in the app: anyone signed in sees published ones and their own; only the owner
// changes one. Another user's private character is a plain 404, as if it did not exist.
import { ApiError } from '../api/errors.ts';
import { type Character, getCharacter } from './characters.ts';
import type { Queryable } from '../db/store.ts';
import type { User } from '../users/users.ts';

export const viewerOf = (user: User) => ({ userId: user.id });

export async function visibleCharacter(store: Queryable, slug: string, user: User): Promise<Character> {
  const c = await getCharacter(store, slug, viewerOf(user));
  if (!c) throw new ApiError('CHARACTER_NOT_FOUND', `Character "${slug}" not found`);
  return c;
}

export async function ownedCharacter(store: Queryable, slug: string, user: User): Promise<Character> {
  const c = await visibleCharacter(store, slug, user);
  if (c.ownerUserId !== user.id) throw new ApiError('FORBIDDEN', 'Only the character’s owner can do this');
  return c;
}

/** The media type of a request, lower-case and without parameters. */
export const mediaType = (req: Request): string => (req.headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
