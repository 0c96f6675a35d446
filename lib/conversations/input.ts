// Checks on what callers pass in (schemas, titles, page limits, list cursors) and the NOT_FOUND error every
// operation throws for anything the user does not own.
import type { z } from 'zod';
import { ApiError } from '../api/errors.ts';
import { cleanLine, TITLE_MAX } from './text.ts';
import type { Conversation } from './types.ts';

export function parse<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const r = schema.safeParse(value);
  if (!r.success) {
    throw new ApiError('INVALID_REQUEST', undefined, {
      issues: r.error.issues.map((i) => ({ path: i.path.map(String).join('.'), message: i.message })),
    });
  }
  return r.data;
}

export function cleanTitle(raw: string): string {
  const t = cleanLine(raw);
  if (t.length < 1 || t.length > TITLE_MAX) throw new ApiError('INVALID_REQUEST', `title must be 1-${TITLE_MAX} characters`, { param: 'title' });
  return t;
}

export const notFound = (what: 'Conversation' | 'Message') => new ApiError('NOT_FOUND', `${what} not found`);

export function encodeCursor(c: Conversation): string {
  return Buffer.from(JSON.stringify([c.updatedAt, c.id])).toString('base64url');
}
export function decodeCursor(cursor: string): [number, string] {
  const bad = () => new ApiError('INVALID_REQUEST', 'invalid cursor', { param: 'cursor' });
  let v: unknown;
  try {
    v = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw bad();
  }
  if (!Array.isArray(v) || v.length !== 2 || !Number.isSafeInteger(v[0]) || typeof v[1] !== 'string') throw bad();
  return [v[0] as number, v[1] as string];
}

export function clampLimit(limit: unknown, fallback: number, max: number): number {
  if (limit === undefined) return fallback;
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > max) {
    throw new ApiError('INVALID_REQUEST', `limit must be an integer from 1 to ${max}`, { param: 'limit' });
  }
  return limit;
}
