// Zod failures → the detailed 400 body: `details` is a tree of `_errors` per field, `issues` a flat list, and the
// message names every invalid field so a client sees what to fix without reading the tree.
import type { z } from 'zod';
import { ApiError } from './errors.ts';
import { pathToWire } from './wire-rename.ts';
import type { WireNames } from './wire.ts';

interface Tree {
  _errors: string[];
  [field: string]: Tree | string[];
}

function describe(issue: z.core.$ZodIssue): string {
  if (issue.code === 'unrecognized_keys') return `Unrecognized key(s): ${issue.keys.join(', ')}`;
  return issue.message;
}

export function validationError(error: z.ZodError, wire: WireNames): ApiError {
  const details: Tree = { _errors: [] };
  const issues = error.issues.map((issue) => {
    const path = pathToWire(issue.path, wire);
    const keys = issue.code === 'unrecognized_keys' ? issue.keys.map((k) => pathToWire([k], wire)[0]) : undefined;
    let node = details;
    for (const seg of path) node = (node[seg] as Tree | undefined) ?? (node[seg] = { _errors: [] });
    const message = keys ? `Unrecognized key(s): ${keys.join(', ')}` : describe(issue);
    node._errors.push(message);
    return { code: issue.code, path, message, ...(keys ? { keys } : {}) };
  });
  const summary = issues.map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message)).join('; ');
  return new ApiError('INVALID_REQUEST', `Invalid request parameters: ${summary}`, { details, issues });
}

export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown, wire: WireNames): z.output<S> {
  const r = schema.safeParse(value);
  if (!r.success) throw validationError(r.error, wire);
  return r.data;
}
