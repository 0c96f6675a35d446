// POST /embeddings request (strict, like chat): `input` is text only. Token-id arrays, which OpenAI also accepts,
// are refused with a message that says so, rather than zod's generic "invalid input".
import { z } from 'zod';

export const MAX_EMBEDDING_INPUTS = 2048;

const isTokenIds = (v: unknown[]): boolean =>
  v.length > 0 && v.every((x) => typeof x === 'number' || (Array.isArray(x) && x.length > 0 && x.every((y) => typeof y === 'number')));

const TEXT_ONLY = 'input must be a string or an array of strings';

/** The inputs as a list (a single string is one input); each non-empty. */
const inputSchema = z.unknown().transform((v, ctx): string[] => {
  if (typeof v === 'string') {
    if (v.length === 0) ctx.addIssue({ code: 'custom', message: 'input must not be an empty string' });
    return [v];
  }
  if (!Array.isArray(v)) {
    ctx.addIssue({ code: 'custom', message: v === undefined ? 'input is required' : TEXT_ONLY });
    return z.NEVER;
  }
  if (isTokenIds(v)) {
    ctx.addIssue({ code: 'custom', message: `${TEXT_ONLY}: token-id arrays are not supported, send the text itself` });
    return z.NEVER;
  }
  if (v.length === 0) ctx.addIssue({ code: 'custom', message: 'input must hold at least one string' });
  if (v.length > MAX_EMBEDDING_INPUTS) ctx.addIssue({ code: 'custom', message: `input may hold at most ${MAX_EMBEDDING_INPUTS} strings (got ${v.length})` });
  v.forEach((item, i) => {
    if (typeof item !== 'string')
      ctx.addIssue({ code: 'custom', path: [i], message: `${TEXT_ONLY}; item ${i} is ${Array.isArray(item) ? 'an array' : typeof item}` });
    else if (item.length === 0) ctx.addIssue({ code: 'custom', path: [i], message: `input item ${i} must not be an empty string` });
  });
  return v as string[];
});

export const embeddingsRequestSchema = z.strictObject({
  model: z.string().min(1),
  input: inputSchema,
  dimensions: z.number().int().min(1).optional(),
  encoding_format: z.enum(['float', 'base64']).default('float'),
  /** Accepted for OpenAI compatibility and discarded. */
  user: z.string().optional(),
});

export type EmbeddingsRequest = z.output<typeof embeddingsRequestSchema>;
