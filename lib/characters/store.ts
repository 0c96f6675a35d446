// Writes to characters made by users: create, edit (the slug only while private), publish, delete, the avatar, and
// the chat count. Ownership is decided by the caller (lib/characters/app-routes.ts); every statement names the row
// by its id, so a slug changed meanwhile cannot redirect a write.
import { randomUUID } from 'node:crypto';
import { ApiError } from '../api/errors.ts';
import type { Param, Queryable, Store } from '../db/store.ts';
import { type Character, findCharacter, type Viewer, visibleTo } from './characters.ts';
import { CHARACTERS_PER_USER } from './limits.ts';
import { slugFor } from './slug.ts';
import type { CharacterDraft, CharacterPatch } from './validate.ts';

export interface Avatar {
  contentType: string;
  data: Buffer;
}

async function mustFind(store: Queryable, slug: string): Promise<Character> {
  const c = await findCharacter(store, slug);
  if (!c) throw new ApiError('CHARACTER_NOT_FOUND', `Character "${slug}" not found`);
  return c;
}

/** A new private character owned by `ownerUserId`, with a fresh slug from its name (400 past the per-user cap). */
export async function createCharacter(store: Store, ownerUserId: string, d: CharacterDraft, avatar?: Avatar, now = Date.now()): Promise<Character> {
  const owned = await store.get<{ n: number }>('SELECT COUNT(*) AS n FROM characters WHERE owner_user_id = $1', [ownerUserId]);
  if (Number(owned?.n ?? 0) >= CHARACTERS_PER_USER)
    throw new ApiError('INVALID_REQUEST', `You have ${CHARACTERS_PER_USER} characters, the most one person may have: delete one to make another`);
  for (let attempt = 0; ; attempt++) {
    const slug = slugFor(d.name);
    try {
      await store.run(
        `INSERT INTO characters (id, slug, name, description, system_prompt, first_message, example_dialogue, model_id, temperature, tags,
           photo_url, avatar_type, avatar_data, adult, featured, web_enabled, visibility, owner_user_id, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, NULL, $11, $12, $13, FALSE, $14, 'private', $15, $16, $16)`,
        [
          randomUUID(),
          slug,
          d.name,
          d.description,
          d.instructions,
          d.firstMessage,
          d.exampleDialogue,
          d.modelId,
          d.temperature,
          JSON.stringify(d.tags),
          avatar?.contentType ?? null,
          avatar ? avatar.data.toString('base64') : null,
          d.adult,
          d.webEnabled,
          ownerUserId,
          now,
        ],
      );
      return mustFind(store, slug);
    } catch (e) {
      // A random suffix collided (vanishingly rare): draw another.
      if (attempt < 3 && (await findCharacter(store, slug))) continue;
      throw e;
    }
  }
}

const COLUMN_OF: Record<string, string> = {
  name: 'name',
  description: 'description',
  instructions: 'system_prompt',
  firstMessage: 'first_message',
  exampleDialogue: 'example_dialogue',
  modelId: 'model_id',
  temperature: 'temperature',
  webEnabled: 'web_enabled',
  adult: 'adult',
  visibility: 'visibility',
};

/**
 * Applies an owner's patch. A new slug is refused once the character is public (chats and API callers use it) and
 * when another character has it.
 */
export async function updateCharacter(store: Store, c: Character, patch: CharacterPatch, now = Date.now()): Promise<Character> {
  return store.tx(async (q) => {
    const sets: string[] = [];
    const params: Param[] = [];
    for (const [key, column] of Object.entries(COLUMN_OF)) {
      const v = patch[key as keyof CharacterPatch];
      if (v === undefined) continue;
      params.push(v as Param);
      sets.push(`${column} = $${params.length}`);
    }
    if (patch.tags !== undefined) {
      params.push(JSON.stringify(patch.tags));
      sets.push(`tags = $${params.length}`);
    }
    let slug = c.slug;
    if (patch.slug !== undefined && patch.slug !== c.slug) {
      const publicAfter = (patch.visibility ?? c.visibility) === 'public';
      if (c.visibility === 'public' || publicAfter)
        throw new ApiError('INVALID_REQUEST', 'slug can be changed only while the character is private', { param: 'slug' });
      if (await findCharacter(q, patch.slug)) throw new ApiError('INVALID_REQUEST', `slug "${patch.slug}" is taken`, { param: 'slug' });
      slug = patch.slug;
      params.push(slug);
      sets.push(`slug = $${params.length}`);
    }
    params.push(now, c.id);
    await q.run(`UPDATE characters SET ${sets.join(', ')}${sets.length ? ', ' : ''}updated_at = $${params.length - 1} WHERE id = $${params.length}`, params);
    return mustFind(q, slug);
  });
}

export async function setVisibility(store: Store, c: Character, visibility: 'private' | 'public', now = Date.now()): Promise<Character> {
  await store.run('UPDATE characters SET visibility = $1, updated_at = $2 WHERE id = $3', [visibility, now, c.id]);
  return mustFind(store, c.slug);
}

/** Removes the character and its reviews; conversations keep their snapshot of it. */
export async function deleteCharacter(store: Store, c: Character): Promise<void> {
  await store.tx(async (q) => {
    await q.run('DELETE FROM character_reviews WHERE character_id = $1', [c.id]);
    await q.run('DELETE FROM characters WHERE id = $1', [c.id]);
  });
}

export async function setAvatar(store: Store, c: Character, avatar: Avatar, now = Date.now()): Promise<Character> {
  await store.run('UPDATE characters SET avatar_type = $1, avatar_data = $2, updated_at = $3 WHERE id = $4', [
    avatar.contentType,
    avatar.data.toString('base64'),
    now,
    c.id,
  ]);
  return mustFind(store, c.slug);
}

/** The avatar of a character `viewer` may see, or undefined (no such character, not theirs to see, or none stored). */
export async function getAvatar(store: Queryable, slug: string, viewer: Viewer): Promise<Avatar | undefined> {
  const params: Param[] = [slug];
  const row = await store.get<{ avatar_type: string | null; avatar_data: string | null }>(
    `SELECT c.avatar_type, c.avatar_data FROM characters c LEFT JOIN users u ON u.id = c.owner_user_id WHERE c.slug = $1 AND ${visibleTo(viewer, params)}`,
    params,
  );
  if (!row?.avatar_type || !row.avatar_data) return undefined;
  return { contentType: row.avatar_type, data: Buffer.from(row.avatar_data, 'base64') };
}

/** One more chat began with the character (its popularity). */
export async function countChat(store: Queryable, characterId: string): Promise<void> {
  await store.run('UPDATE characters SET chat_count = chat_count + 1 WHERE id = $1', [characterId]);
}
