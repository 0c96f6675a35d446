// GET /characters and GET /characters/{slug}.
import { z } from 'zod';
import { ApiError } from '../../api/errors.ts';
import { parseOrThrow } from '../../api/validation.ts';
import { characterRecord, getCharacter, listCharacters } from '../../characters/characters.ts';
import type { RequestCtx } from '../context.ts';
import { ok } from '../send.ts';

const boolString = z.enum(['true', 'false']).transform((v) => v === 'true');
const query = z.strictObject({
  search: z.string().max(200).optional(),
  tags: z.array(z.string().max(64)).max(20).optional(),
  isAdult: boolString.optional(),
  limit: z.coerce.number().int().min(1).max(100).default(50),
  offset: z.coerce.number().int().min(0).default(0),
});

export async function listCharactersRoute(ctx: RequestCtx): Promise<void> {
  const sp = ctx.url.searchParams;
  const raw: Record<string, unknown> = Object.create(null); // the client's parameter names, whatever they are
  for (const key of new Set(sp.keys())) {
    const name = key.replace(/\[\]$/, '');
    raw[name] =
      name === 'tags'
        ? sp
            .getAll(key)
            .flatMap((t) => t.split(','))
            .filter(Boolean)
        : sp.get(key);
  }
  const q = parseOrThrow(query, raw, ctx.svc.config.wire);
  const list = await listCharacters(ctx.svc.store, q);
  ok(ctx, { object: 'list', data: list.map(characterRecord) });
}

export async function getCharacterRoute(ctx: RequestCtx): Promise<void> {
  const c = await getCharacter(ctx.svc.store, ctx.params.slug);
  if (!c) throw new ApiError('CHARACTER_NOT_FOUND', `Character "${ctx.params.slug}" not found`);
  ok(ctx, { object: 'character', data: characterRecord(c) });
}
