// Character Card V2 and V3 (the community formats SillyTavern and others read and write): parsed strictly and
// trusted with nothing. Only the fields we keep are read, each must have its type (else a 400 naming it), text is
// cut to our limits, and everything else (lorebooks, scripts, assets, other apps' extensions) is dropped.
//
// Mapping, chosen so export → import gives back the same character:
//   instructions ⇄ data.description (plus, on import only, system_prompt, personality and scenario when present)
//   description ⇄ data.creator_notes; firstMessage ⇄ first_mes; exampleDialogue ⇄ mes_example; name; tags;
//   modelId, temperature, webEnabled ⇄ data.extensions.lagoon.
import { z } from 'zod';
import { ApiError } from '../api/errors.ts';
import type { Character } from './characters.ts';
import { CARD_JSON_MAX_BYTES, CHARACTER_LIMITS as L } from './limits.ts';
import { readTextChunks } from './png.ts';
import { type CharacterDraft, cleanLine, cleanTags, cleanText } from './validate.ts';

export type CardVersion = 'v2' | 'v3';

const invalid = (why: string, param?: string) => new ApiError('INVALID_REQUEST', `Invalid character card: ${why}`, param ? { param } : {});

const str = z.string().max(CARD_JSON_MAX_BYTES);
const cardData = z.looseObject({
  name: str,
  description: str.optional(),
  personality: str.optional(),
  scenario: str.optional(),
  first_mes: str.optional(),
  mes_example: str.optional(),
  creator_notes: str.optional(),
  system_prompt: str.optional(),
  tags: z.array(z.string().max(1000)).max(1000).optional(),
  extensions: z.record(z.string(), z.unknown()).optional(),
});
const card = z.looseObject({
  spec: z.enum(['chara_card_v2', 'chara_card_v3']),
  spec_version: z.string().max(20).optional(),
  data: cardData,
});
const lagoonExtension = z.looseObject({
  modelId: z.string().min(1).max(L.modelId).nullable().optional().catch(undefined),
  temperature: z.number().min(0).max(2).nullable().optional().catch(undefined),
  webEnabled: z.boolean().optional().catch(undefined),
});

const cut = (s: string | undefined, max: number) =>
  cleanText(s ?? '')
    .slice(0, max)
    .trim();

/** A parsed card (any JSON value) → the character it describes; 400 for anything that is not a V2/V3 card. */
export function draftFromCard(value: unknown): { draft: CharacterDraft; version: CardVersion } {
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw invalid('expected a JSON object');
  const spec = (value as Record<string, unknown>).spec;
  if (spec === undefined && typeof (value as Record<string, unknown>).name === 'string')
    throw invalid('this is a V1 card (no "spec"); only Character Card V2 and V3 are accepted', 'spec');
  const r = card.safeParse(value);
  if (!r.success) {
    const issue = r.error.issues[0];
    const path = issue.path.map(String).join('.');
    const why = path === 'spec' ? 'spec must be "chara_card_v2" or "chara_card_v3"' : `${path || 'card'}: ${issue.message}`;
    throw invalid(why, path || undefined);
  }
  const d = r.data.data;
  const name = cleanLine(d.name).slice(0, L.name).trim();
  if (!name) throw invalid('data.name is empty', 'data.name');
  const persona = [
    cleanText(d.system_prompt ?? ''),
    cleanText(d.description ?? ''),
    d.personality?.trim() ? `Personality: ${cleanText(d.personality)}` : '',
    d.scenario?.trim() ? `Scenario: ${cleanText(d.scenario)}` : '',
  ].filter(Boolean);
  const ext = lagoonExtension.safeParse(d.extensions?.lagoon);
  const lagoon = ext.success ? ext.data : {};
  return {
    version: r.data.spec === 'chara_card_v3' ? 'v3' : 'v2',
    draft: {
      name,
      description: cut(d.creator_notes, L.description),
      tags: cleanTags(d.tags ?? [])
        .filter((t) => t.length <= L.tag)
        .slice(0, L.tags),
      instructions: persona.join('\n\n').slice(0, L.instructions).trim(),
      firstMessage: cut(d.first_mes, L.firstMessage),
      exampleDialogue: cut(d.mes_example, L.exampleDialogue),
      modelId: lagoon.modelId ?? null,
      temperature: lagoon.temperature ?? null,
      webEnabled: lagoon.webEnabled ?? false,
      adult: false,
    },
  };
}

/** Card JSON text (≤ 1 MB) → the character. */
export function draftFromJson(text: string): { draft: CharacterDraft; version: CardVersion } {
  if (Buffer.byteLength(text) > CARD_JSON_MAX_BYTES) throw new ApiError('PAYLOAD_TOO_LARGE', 'The card is larger than 1 MB');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw invalid('it is not valid JSON');
  }
  return draftFromCard(value);
}

/** A PNG with a card in its `ccv3` (preferred) or `chara` text chunk → the character. */
export function draftFromPng(png: Buffer): { draft: CharacterDraft; version: CardVersion } {
  // base64 grows 4/3: the chunk may be that much larger than the JSON cap.
  const texts = readTextChunks(png, ['ccv3', 'chara'], Math.ceil((CARD_JSON_MAX_BYTES * 4) / 3) + 4);
  const encoded = texts.get('ccv3') ?? texts.get('chara');
  if (encoded === undefined) throw invalid('the PNG has no "chara" or "ccv3" metadata chunk');
  const b64 = encoded.trim();
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(b64)) throw invalid('the PNG card chunk is not base64');
  return draftFromJson(Buffer.from(b64, 'base64').toString('utf8'));
}

/** The character as a card of `version` (the JSON value). */
export function cardOf(c: Character, version: CardVersion): Record<string, unknown> {
  const data: Record<string, unknown> = {
    name: c.name,
    description: c.systemPrompt,
    personality: '',
    scenario: '',
    first_mes: c.firstMessage,
    mes_example: c.exampleDialogue,
    creator_notes: c.description ?? '',
    system_prompt: '',
    post_history_instructions: '',
    alternate_greetings: [],
    tags: c.tags,
    creator: c.ownerName || '',
    character_version: new Date(c.updatedAt).toISOString(),
    extensions: { lagoon: { modelId: c.modelId, temperature: c.temperature, webEnabled: c.webEnabled } },
  };
  if (version === 'v2') return { spec: 'chara_card_v2', spec_version: '2.0', data };
  return {
    spec: 'chara_card_v3',
    spec_version: '3.0',
    data: {
      ...data,
      group_only_greetings: [],
      creation_date: Math.floor(c.createdAt / 1000),
      modification_date: Math.floor(c.updatedAt / 1000),
    },
  };
}
