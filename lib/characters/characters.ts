// Characters: personas with instructions (a system prompt), a first message and a preferred model, applied with
// `character_slug`. The server ships a few (owner null, public); users make their own, private until published.
// Every read takes a Viewer: published characters and the viewer's own, never another user's private one.
import { createHash } from 'node:crypto';
import type { Param, Queryable, Store } from '../db/store.ts';

export type Visibility = 'private' | 'public';

export interface CharacterStats {
  chats: number;
  ratingCount: number;
  ratingSum: number;
}

export interface Character {
  id: string;
  slug: string;
  name: string;
  description: string | null;
  systemPrompt: string;
  firstMessage: string;
  exampleDialogue: string;
  modelId: string | null;
  temperature: number | null;
  tags: string[];
  photoUrl: string | null;
  /** The stored avatar's content type, or null when it has none (the bytes are read by getAvatar only). */
  avatarType: string | null;
  adult: boolean;
  featured: boolean;
  webEnabled: boolean;
  visibility: Visibility;
  ownerUserId: string | null;
  /** The owner's display name ('' when they set none); null for the server's own. */
  ownerName: string | null;
  stats: CharacterStats;
  createdAt: number;
  updatedAt: number;
}

/** Who is looking: a signed-in user (the app) or an API key's account; neither sees only published characters. */
export interface Viewer {
  userId?: string;
  accountId?: string;
}

interface CharacterRow {
  id: string;
  slug: string;
  name: string;
  description: string | null;
  system_prompt: string;
  first_message: string;
  example_dialogue: string;
  model_id: string | null;
  temperature: number | null;
  tags: string;
  photo_url: string | null;
  avatar_type: string | null;
  adult: number | boolean;
  featured: number | boolean;
  web_enabled: number | boolean;
  visibility: string;
  owner_user_id: string | null;
  owner_name: string | null;
  chat_count: number;
  rating_count: number;
  rating_sum: number;
  created_at: number;
  updated_at: number;
}

export const CHARACTER_SELECT = `SELECT c.id, c.slug, c.name, c.description, c.system_prompt, c.first_message, c.example_dialogue, c.model_id,
  c.temperature, c.tags, c.photo_url, c.avatar_type, c.adult, c.featured, c.web_enabled, c.visibility, c.owner_user_id,
  u.display_name AS owner_name, c.chat_count, c.rating_count, c.rating_sum, c.created_at, c.updated_at
  FROM characters c LEFT JOIN users u ON u.id = c.owner_user_id`;

export const toCharacter = (r: CharacterRow): Character => ({
  id: r.id,
  slug: r.slug,
  name: r.name,
  description: r.description,
  systemPrompt: r.system_prompt,
  firstMessage: r.first_message,
  exampleDialogue: r.example_dialogue,
  modelId: r.model_id,
  temperature: r.temperature === null ? null : Number(r.temperature),
  tags: JSON.parse(r.tags) as string[],
  photoUrl: r.photo_url,
  avatarType: r.avatar_type,
  adult: Boolean(r.adult),
  featured: Boolean(r.featured),
  webEnabled: Boolean(r.web_enabled),
  visibility: r.visibility === 'public' ? 'public' : 'private',
  ownerUserId: r.owner_user_id,
  ownerName: r.owner_user_id ? (r.owner_name ?? '') : null,
  stats: { chats: Number(r.chat_count), ratingCount: Number(r.rating_count), ratingSum: Number(r.rating_sum) },
  createdAt: Number(r.created_at),
  updatedAt: Number(r.updated_at),
});

/** The SQL condition for "this viewer may see c", its parameters appended to `params`. */
export function visibleTo(viewer: Viewer, params: Param[]): string {
  const own: string[] = [];
  if (viewer.userId) {
    params.push(viewer.userId);
    own.push(`c.owner_user_id = $${params.length}`);
  }
  if (viewer.accountId) {
    params.push(viewer.accountId);
    own.push(`u.account_id = $${params.length}`);
  }
  return `(c.visibility = 'public'${own.map((o) => ` OR ${o}`).join('')})`;
}

/** The character `slug` as `viewer` may see it; undefined for an unknown slug and for another user's private one. */
export async function getCharacter(store: Queryable, slug: string, viewer: Viewer = {}): Promise<Character | undefined> {
  const params: Param[] = [slug];
  const row = await store.get<CharacterRow>(`${CHARACTER_SELECT} WHERE c.slug = $1 AND ${visibleTo(viewer, params)}`, params);
  return row && toCharacter(row);
}

/** Any character by slug, whoever owns it: for the owner's and the operator's checks, which decide themselves. */
export async function findCharacter(store: Queryable, slug: string): Promise<Character | undefined> {
  const row = await store.get<CharacterRow>(`${CHARACTER_SELECT} WHERE c.slug = $1`, [slug]);
  return row && toCharacter(row);
}

/** Any character by id, whoever owns it (a review names its character by id). */
export async function findCharacterById(store: Queryable, id: string): Promise<Character | undefined> {
  const row = await store.get<CharacterRow>(`${CHARACTER_SELECT} WHERE c.id = $1`, [id]);
  return row && toCharacter(row);
}

export type CharacterSort = 'featured' | 'popular' | 'new' | 'top' | 'ratingCount' | 'name';

export interface CharacterQuery {
  search?: string;
  tags?: string[];
  isAdult?: boolean;
  isWebEnabled?: boolean;
  modelIds?: string[];
  viewer?: Viewer;
  /** Only the viewer's own (the app's "mine"). */
  mineOnly?: boolean;
  /** Only those the server ships (no owner): remote mode lists the remote API's instead. */
  ownedOnly?: boolean;
  sort?: CharacterSort;
  order?: 'asc' | 'desc';
  limit: number;
  offset: number;
}

const escapeLike = (s: string) => s.replace(/[%_\\]/g, (c) => `\\${c}`);

function whereOf(q: CharacterQuery, params: Param[]): string {
  const where: string[] = [visibleTo(q.viewer ?? {}, params)];
  if (q.search) {
    params.push(`%${escapeLike(q.search.toLowerCase())}%`);
    const p = `$${params.length}`;
    where.push(`(LOWER(c.name) LIKE ${p} ESCAPE '\\' OR LOWER(COALESCE(c.description, '')) LIKE ${p} ESCAPE '\\' OR LOWER(c.tags) LIKE ${p} ESCAPE '\\')`);
  }
  // Tags are stored as a JSON array of lower-case strings: a quoted tag matches that element only.
  for (const tag of q.tags ?? []) {
    params.push(`%${escapeLike(JSON.stringify(tag.toLowerCase()))}%`);
    where.push(`c.tags LIKE $${params.length} ESCAPE '\\'`);
  }
  if (q.isAdult !== undefined) {
    params.push(q.isAdult);
    where.push(`c.adult = $${params.length}`);
  }
  if (q.isWebEnabled !== undefined) {
    params.push(q.isWebEnabled);
    where.push(`c.web_enabled = $${params.length}`);
  }
  if (q.modelIds?.length) {
    const ps = q.modelIds.map((m) => (params.push(m), `$${params.length}`));
    where.push(`c.model_id IN (${ps.join(', ')})`);
  }
  if (q.mineOnly) {
    if (!q.viewer?.userId) return 'FALSE';
    params.push(q.viewer.userId);
    where.push(`c.owner_user_id = $${params.length}`);
  }
  if (q.ownedOnly) where.push('c.owner_user_id IS NOT NULL');
  return where.join(' AND ');
}

const AVERAGE = 'CASE WHEN c.rating_count = 0 THEN 0 ELSE CAST(c.rating_sum AS DOUBLE PRECISION) / c.rating_count END';

function orderOf(sort: CharacterSort = 'featured', order?: 'asc' | 'desc'): string {
  const dir = order === 'asc' ? 'ASC' : 'DESC';
  switch (sort) {
    case 'popular':
      return `c.chat_count ${dir}, c.rating_count DESC, c.slug`;
    case 'new':
      return `c.created_at ${dir}, c.slug`;
    case 'top':
      return `${AVERAGE} ${dir}, c.rating_count DESC, c.slug`;
    case 'ratingCount':
      return `c.rating_count ${dir}, c.slug`;
    case 'name':
      return `c.name ${order === 'desc' ? 'DESC' : 'ASC'}, c.slug`;
    default:
      return `c.featured ${dir}, c.name, c.slug`;
  }
}

/** Search matches name, description and tags, case-insensitively; tags must all be present. */
export async function listCharacters(store: Queryable, q: CharacterQuery): Promise<Character[]> {
  const params: Param[] = [];
  const where = whereOf(q, params);
  params.push(q.limit, q.offset);
  const sql = `${CHARACTER_SELECT} WHERE ${where} ORDER BY ${orderOf(q.sort, q.order)} LIMIT $${params.length - 1} OFFSET $${params.length}`;
  return (await store.all<CharacterRow>(sql, params)).map(toCharacter);
}

/** How many characters `listCharacters` pages through (limit and offset aside). */
export async function countCharacters(store: Queryable, q: Omit<CharacterQuery, 'limit' | 'offset'>): Promise<number> {
  const params: Param[] = [];
  const where = whereOf({ ...q, limit: 0, offset: 0 }, params);
  const row = await store.get<{ n: number }>(`SELECT COUNT(*) AS n FROM characters c LEFT JOIN users u ON u.id = c.owner_user_id WHERE ${where}`, params);
  return Number(row?.n ?? 0);
}

export type SeedCharacter = Pick<
  Character,
  'slug' | 'name' | 'description' | 'systemPrompt' | 'modelId' | 'tags' | 'photoUrl' | 'adult' | 'featured' | 'webEnabled'
>;

/** A server-owned public character (the seeds; the operator's edits through SQL are overwritten only by a new seed). */
export async function upsertCharacter(store: Store, c: SeedCharacter, now = Date.now()): Promise<void> {
  await store.run(
    `INSERT INTO characters (id, slug, name, description, system_prompt, model_id, tags, photo_url, adult, featured, web_enabled, visibility, created_at, updated_at)
     VALUES ($1, $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, 'public', $11, $11)
     ON CONFLICT (slug) DO UPDATE SET name = excluded.name, description = excluded.description, system_prompt = excluded.system_prompt,
       model_id = excluded.model_id, tags = excluded.tags, photo_url = excluded.photo_url, adult = excluded.adult,
       featured = excluded.featured, web_enabled = excluded.web_enabled, updated_at = excluded.updated_at`,
    [
      c.slug,
      c.name,
      c.description,
      c.systemPrompt,
      c.modelId,
      JSON.stringify(c.tags.map((t) => t.toLowerCase())),
      c.photoUrl,
      c.adult,
      c.featured,
      c.webEnabled,
      now,
    ],
  );
}

export const averageRating = (s: CharacterStats): number => (s.ratingCount ? Math.round((s.ratingSum / s.ratingCount) * 100) / 100 : 0);

/** The public API's author: a short id that names no one (the server's own are 'lagoon'). */
export const authorOf = (c: Pick<Character, 'ownerUserId'>): string =>
  c.ownerUserId ? createHash('sha256').update(`character-author:${c.ownerUserId}`).digest('hex').slice(0, 10) : 'lagoon';

/** Where a published character's uploaded avatar is served to anyone (GET /api/v1/characters/{slug}/photo). */
export const photoPath = (slug: string): string => `/api/v1/characters/${encodeURIComponent(slug)}/photo`;

/**
 * The record's absolute `photoUrl` on `origin` (the server's public origin): an uploaded avatar at its public URL,
 * versioned so a new upload is a new URL, but only once the character is published (the URL is open to anyone, and
 * serves nothing for a private one); else the character's own picture (the seeds' are paths on this server).
 */
export function photoUrlOf(c: Character, origin: string): string | null {
  if (c.avatarType) return c.visibility === 'public' ? `${origin}${photoPath(c.slug)}?v=${c.updatedAt}` : null;
  if (!c.photoUrl) return null;
  return c.photoUrl.startsWith('/') && !c.photoUrl.startsWith('//') ? `${origin}${c.photoUrl}` : c.photoUrl;
}

/**
 * The public wire record (reference: Character). `userRating`: the caller's own review, when known; `origin`: the
 * server's public origin, for the absolute `photoUrl`.
 */
export function characterRecord(c: Character, userRating: number | null, origin: string) {
  return {
    id: c.id,
    slug: c.slug,
    name: c.name,
    description: c.description,
    author: authorOf(c),
    adult: c.adult,
    featured: c.featured,
    webEnabled: c.webEnabled,
    // Always a string (the public schema), and one `model` accepts: without its own, a character chats with the default.
    modelId: c.modelId ?? 'default',
    tags: c.tags,
    shareUrl: null,
    photoUrl: photoUrlOf(c, origin),
    createdAt: new Date(c.createdAt).toISOString(),
    updatedAt: new Date(c.updatedAt).toISOString(),
    stats: { averageRating: averageRating(c.stats), imports: c.stats.chats, ratingCount: c.stats.ratingCount, ratingSum: c.stats.ratingSum, userRating },
  };
}
