// What a character may hold, checked once for the editor's API and for imported cards: text is stored as given
// (HTML stays text: the browser renders it as text), control characters other than newlines and tabs are dropped,
// tags are lower-case, trimmed and unique. The API refuses an over-long field; a card's fields are cut to fit.
import { z } from 'zod';
import { ApiError } from '../api/errors.ts';
import { CHARACTER_LIMITS as L } from './limits.ts';
import { slugProblem } from './slug.ts';

// C0 controls but \t and \n, DEL, C1 controls, and the bidi overrides that can disguise text.
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/** Multi-line text: CRLF → LF, controls dropped, surrounding blank space trimmed. */
export const cleanText = (s: string): string => s.replace(/\r\n?/g, '\n').replace(CONTROL, '').trim();
/** One line: any run of blank space (newlines too) becomes one space. */
export const cleanLine = (s: string): string => cleanText(s).replace(/\s+/g, ' ');

/** Tags as stored: lower-case single lines, without a leading '#', empty ones and repeats dropped. */
export function cleanTags(tags: string[]): string[] {
  const out: string[] = [];
  for (const t of tags) {
    const tag = cleanLine(t).replace(/^#+/, '').toLowerCase();
    if (tag && !out.includes(tag)) out.push(tag);
  }
  return out;
}

const text = (max: number) =>
  z
    .string()
    .transform(cleanText)
    .pipe(z.string().max(max, `must be at most ${max} characters`));

const tags = z
  .array(z.string().max(200))
  .max(50)
  .transform(cleanTags)
  .pipe(z.array(z.string().max(L.tag, `each tag must be at most ${L.tag} characters`)).max(L.tags, `at most ${L.tags} tags`));

export const characterFields = {
  name: z
    .string()
    .transform(cleanLine)
    .pipe(z.string().min(1, 'must not be empty').max(L.name, `must be at most ${L.name} characters`)),
  description: text(L.description),
  tags,
  instructions: text(L.instructions),
  firstMessage: text(L.firstMessage),
  exampleDialogue: text(L.exampleDialogue),
  modelId: z.string().trim().min(1).max(L.modelId).nullable(),
  temperature: z.number().min(0, 'must be from 0 to 2').max(2, 'must be from 0 to 2').nullable(),
  webEnabled: z.boolean(),
  adult: z.boolean(),
};

export const createSchema = z.strictObject({
  name: characterFields.name,
  description: characterFields.description.optional(),
  tags: characterFields.tags.optional(),
  instructions: characterFields.instructions,
  firstMessage: characterFields.firstMessage.optional(),
  exampleDialogue: characterFields.exampleDialogue.optional(),
  modelId: characterFields.modelId.optional(),
  temperature: characterFields.temperature.optional(),
  webEnabled: characterFields.webEnabled.optional(),
  adult: characterFields.adult.optional(),
});

export const patchSchema = z
  .strictObject({
    ...createSchema.partial().shape,
    visibility: z.enum(['private', 'public']).optional(),
    slug: z
      .string()
      .trim()
      .toLowerCase()
      .refine((s) => slugProblem(s) === null, { error: (i) => slugProblem(String(i.input).trim().toLowerCase()) ?? 'invalid slug' })
      .optional(),
  })
  .refine((b) => Object.values(b).some((v) => v !== undefined), { message: 'Send at least one field to change' });

export type CharacterInput = z.output<typeof createSchema>;
export type CharacterPatch = z.output<typeof patchSchema>;

/** The fields of a character as created, every optional one filled with its default. */
export interface CharacterDraft {
  name: string;
  description: string;
  tags: string[];
  instructions: string;
  firstMessage: string;
  exampleDialogue: string;
  modelId: string | null;
  temperature: number | null;
  webEnabled: boolean;
  adult: boolean;
}

export const draftOf = (b: CharacterInput): CharacterDraft => ({
  name: b.name,
  description: b.description ?? '',
  tags: b.tags ?? [],
  instructions: b.instructions,
  firstMessage: b.firstMessage ?? '',
  exampleDialogue: b.exampleDialogue ?? '',
  modelId: b.modelId ?? null,
  temperature: b.temperature ?? null,
  webEnabled: b.webEnabled ?? false,
  adult: b.adult ?? false,
});

/** Parses `body` with `schema`; a failure is a 400 naming the first offending field. */
export function parseInput<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  const r = schema.safeParse(body);
  if (r.success) return r.data;
  const issue = r.error.issues[0];
  const param = issue.path.map(String).join('.') || undefined;
  throw new ApiError('INVALID_REQUEST', param ? `${param}: ${issue.message}` : issue.message, param ? { param } : {});
}
