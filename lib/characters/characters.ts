// Public characters: personas with a system prompt and a default model, applied with `character_slug`.
import type { Store } from '../db/store.ts';

export interface Character {
  slug: string;
  name: string;
  description: string | null;
  systemPrompt: string;
  modelId: string | null;
  tags: string[];
  photoUrl: string | null;
  adult: boolean;
  featured: boolean;
  webEnabled: boolean;
  createdAt: number;
  updatedAt: number;
}

interface CharacterRow {
  slug: string;
  name: string;
  description: string | null;
  system_prompt: string;
  model_id: string | null;
  tags: string;
  photo_url: string | null;
  adult: number | boolean;
  featured: number | boolean;
  web_enabled: number | boolean;
  created_at: number;
  updated_at: number;
}

const COLUMNS = 'slug, name, description, system_prompt, model_id, tags, photo_url, adult, featured, web_enabled, created_at, updated_at';

const toCharacter = (r: CharacterRow): Character => ({
  slug: r.slug,
  name: r.name,
  description: r.description,
  systemPrompt: r.system_prompt,
  modelId: r.model_id,
  tags: JSON.parse(r.tags) as string[],
  photoUrl: r.photo_url,
  adult: Boolean(r.adult),
  featured: Boolean(r.featured),
  webEnabled: Boolean(r.web_enabled),
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export async function getCharacter(store: Store, slug: string): Promise<Character | undefined> {
  const row = await store.get<CharacterRow>(`SELECT ${COLUMNS} FROM characters WHERE slug = $1`, [slug]);
  return row && toCharacter(row);
}

export interface CharacterQuery {
  search?: string;
  tags?: string[];
  isAdult?: boolean;
  limit: number;
  offset: number;
}

/** Search matches name, description and tags, case-insensitively; tags must all be present. */
export async function listCharacters(store: Store, q: CharacterQuery): Promise<Character[]> {
  const where: string[] = [];
  const params: (string | number | boolean)[] = [];
  if (q.search) {
    params.push(`%${q.search.toLowerCase().replace(/[%_\\]/g, (c) => `\\${c}`)}%`);
    const p = `$${params.length}`;
    where.push(`(LOWER(name) LIKE ${p} ESCAPE '\\' OR LOWER(COALESCE(description, '')) LIKE ${p} ESCAPE '\\' OR LOWER(tags) LIKE ${p} ESCAPE '\\')`);
  }
  for (const tag of q.tags ?? []) {
    params.push(`%${JSON.stringify(tag.toLowerCase())}%`);
    where.push(`LOWER(tags) LIKE $${params.length}`);
  }
  if (q.isAdult !== undefined) {
    params.push(q.isAdult);
    where.push(`adult = $${params.length}`);
  }
  params.push(q.limit, q.offset);
  const sql = `SELECT ${COLUMNS} FROM characters ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
    ORDER BY featured DESC, name LIMIT $${params.length - 1} OFFSET $${params.length}`;
  return (await store.all<CharacterRow>(sql, params)).map(toCharacter);
}

export async function upsertCharacter(store: Store, c: Omit<Character, 'createdAt' | 'updatedAt'>, now = Date.now()): Promise<void> {
  await store.run(
    `INSERT INTO characters (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11)
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

/** The public wire record (reference: Character). */
export function characterRecord(c: Character) {
  return {
    id: c.slug,
    slug: c.slug,
    name: c.name,
    description: c.description,
    author: 'lagoon',
    adult: c.adult,
    featured: c.featured,
    webEnabled: c.webEnabled,
    modelId: c.modelId,
    tags: c.tags,
    shareUrl: null,
    photoUrl: c.photoUrl,
    createdAt: new Date(c.createdAt).toISOString(),
    updatedAt: new Date(c.updatedAt).toISOString(),
    stats: { averageRating: 0, imports: 0, ratingCount: 0, ratingSum: 0, userRating: null },
  };
}
