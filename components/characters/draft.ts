// The editor's draft: the form's strings, and how they become the API's fields (tags split and lower-cased, an empty
// temperature meaning the model's default). Pure, so it is unit-tested.
import type { CharacterDetail, CharacterInput } from './types.ts';

/** The contract's limits; the server enforces them too, these only stop typing past them. */
export const LIMITS = { name: 80, description: 2000, tags: 12, tag: 32, instructions: 20_000, firstMessage: 4000, exampleDialogue: 8000 } as const;
export const AVATAR_MAX_BYTES = 5 * 1024 * 1024;
export const AVATAR_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'image/gif'];

export interface Draft {
  name: string;
  description: string;
  tags: string;
  instructions: string;
  firstMessage: string;
  exampleDialogue: string;
  modelId: string;
  temperature: string;
  webEnabled: boolean;
}

export const emptyDraft: Draft = {
  name: '',
  description: '',
  tags: '',
  instructions: '',
  firstMessage: '',
  exampleDialogue: '',
  modelId: '',
  temperature: '',
  webEnabled: false,
};

export function draftOf(c: CharacterDetail): Draft {
  return {
    name: c.name,
    description: c.description,
    tags: c.tags.join(', '),
    instructions: c.instructions,
    firstMessage: c.firstMessage,
    exampleDialogue: c.exampleDialogue,
    modelId: c.modelId ?? '',
    temperature: c.temperature === null ? '' : String(c.temperature),
    webEnabled: c.webEnabled,
  };
}

/** "Pirate, Sea  ,pirate" → ["pirate", "sea"]: comma-separated, trimmed, lower-case, without repeats or blanks. */
export function parseTags(text: string): string[] {
  const out: string[] = [];
  for (const raw of text.split(',')) {
    const t = raw.trim().toLowerCase();
    if (t && !out.includes(t)) out.push(t);
  }
  return out;
}

/** The temperature field: blank is the model's default (null); anything else must be a number from 0 to 2. */
export function parseTemperature(text: string): number | null | 'invalid' {
  if (!text.trim()) return null;
  const n = Number(text);
  return Number.isFinite(n) && n >= 0 && n <= 2 ? n : 'invalid';
}

/** A problem with a draft: its message in the catalogue (`characterDraft`) and the numbers it names. */
export interface DraftProblem {
  key: 'nameMissing' | 'tooManyTags' | 'tagTooLong' | 'badTemperature';
  values?: { max: number };
}

/** What is wrong with the draft before it is sent (the first problem per field), or an empty object. */
export function draftProblems(d: Draft): Partial<Record<keyof Draft, DraftProblem>> {
  const p: Partial<Record<keyof Draft, DraftProblem>> = {};
  if (!d.name.trim()) p.name = { key: 'nameMissing' };
  const tags = parseTags(d.tags);
  if (tags.length > LIMITS.tags) p.tags = { key: 'tooManyTags', values: { max: LIMITS.tags } };
  else if (tags.some((t) => t.length > LIMITS.tag)) p.tags = { key: 'tagTooLong', values: { max: LIMITS.tag } };
  if (parseTemperature(d.temperature) === 'invalid') p.temperature = { key: 'badTemperature' };
  return p;
}

/** The API's fields from a draft with no problems. */
export function inputOf(d: Draft): CharacterInput {
  const t = parseTemperature(d.temperature);
  return {
    name: d.name.trim(),
    description: d.description.trim(),
    tags: parseTags(d.tags),
    instructions: d.instructions.trim(),
    firstMessage: d.firstMessage.trim(),
    exampleDialogue: d.exampleDialogue.trim(),
    modelId: d.modelId || null,
    temperature: t === 'invalid' ? null : t,
    webEnabled: d.webEnabled,
  };
}

/** Why an avatar file cannot be used (its message in the catalogue's `characterDraft`), or null. */
export function avatarProblem(file: { type: string; size: number }): 'avatarType' | 'avatarSize' | null {
  if (!AVATAR_TYPES.includes(file.type)) return 'avatarType';
  if (file.size > AVATAR_MAX_BYTES) return 'avatarSize';
  return null;
}
