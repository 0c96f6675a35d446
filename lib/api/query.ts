// The one query-string parser of both APIs: the parameters as an object for strict schema validation (the same 400
// body as JSON bodies). A parameter given twice is ambiguous, so it is refused rather than one copy silently winning.
import type { z } from 'zod';
import { ApiError } from './errors.ts';
import { parseOrThrow } from './validation.ts';
import type { WireNames } from './wire.ts';

export function queryObject(url: URL): Record<string, string> {
  const out: Record<string, string> = Object.create(null);
  for (const [name, value] of url.searchParams) {
    if (Object.hasOwn(out, name)) throw new ApiError('INVALID_REQUEST', `Query parameter ${name} is given more than once`, { param: name });
    out[name] = value;
  }
  return out;
}

/** The query string validated by `schema` (a strict object schema refuses unknown parameters). */
export const parseQuery = <S extends z.ZodType>(schema: S, url: URL, wire: WireNames): z.output<S> => parseOrThrow(schema, { ...queryObject(url) }, wire);
