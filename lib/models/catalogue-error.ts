// A catalogue file that cannot be served: which file, which field, what is wrong, in one paragraph an operator can act
// on (scripts/serve.ts prints it instead of a stack trace and exits non-zero).
import type { z } from 'zod';

export interface CatalogueProblem {
  /** The field, written as in JavaScript (`models[2].engine.baseUrl`), with the model's id when known; '' for the file. */
  path: string;
  message: string;
}

const MAX_SHOWN = 5;

export class CatalogueError extends Error {
  readonly file: string | undefined;
  readonly problems: CatalogueProblem[];

  constructor(problems: CatalogueProblem[], file?: string) {
    const shown = problems.slice(0, MAX_SHOWN).map((p) => (p.path ? `${p.path}: ${p.message}` : p.message));
    const more = problems.length > MAX_SHOWN ? `; and ${problems.length - MAX_SHOWN} more` : '';
    super(`The model catalogue${file ? ` ${file}` : ''} is invalid: ${shown.join('; ')}${more}. Fix the file and start again.`);
    this.name = 'CatalogueError';
    this.file = file;
    this.problems = problems;
  }

  /** The same problems, attributed to the file they came from. */
  inFile(file: string): CatalogueError {
    return new CatalogueError(this.problems, file);
  }
}

/** `models[2] ("qwen3").engine.baseUrl`: the path of a zod issue, naming the model by its id when the file gives one. */
export function fieldPath(path: readonly PropertyKey[], raw: unknown): string {
  let out = '';
  let node: unknown = raw;
  for (const key of path) {
    out += typeof key === 'number' ? `[${key}]` : `${out ? '.' : ''}${String(key)}`;
    node = node && typeof node === 'object' ? (node as Record<PropertyKey, unknown>)[key] : undefined;
    const id = typeof key === 'number' && node && typeof node === 'object' ? (node as { id?: unknown }).id : undefined;
    if (typeof id === 'string') out += ` ("${id.slice(0, 80)}")`;
  }
  return out;
}

/** One problem per zod issue (a union's branches are summarised by zod itself). */
export function problemsOf(error: z.ZodError, raw: unknown): CatalogueProblem[] {
  return error.issues.map((i) => ({ path: fieldPath(i.path, raw), message: i.message }));
}
