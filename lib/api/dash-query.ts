// Query-string pieces shared by the billing, rate-limit and operator routes: instants (a UTC day or a date-time
// with a zone, as GET /api/v1/billing/usage-history takes them), pages, and the page count.
import { z } from 'zod';
import { parseQuery } from './query.ts';
import type { AppDeps } from '../http/app-deps.ts';

// A zoneless time would depend on the server's clock zone, so a date-time must carry its zone.
export const instant = z
  .union([z.iso.date(), z.iso.datetime({ offset: true })], {
    error: 'must be an ISO 8601 date (YYYY-MM-DD) or date-time with a zone (e.g. 2026-01-31T12:00:00Z)',
  })
  .transform((s) => Date.parse(s.length === 10 ? `${s}T00:00:00Z` : s));

export const intParam = (min: number, max: number, fallback: number) =>
  z
    .string()
    .regex(/^\d{1,9}$/, `must be an integer from ${min} to ${max}`)
    .transform(Number)
    .pipe(z.number().min(min, `must be at least ${min}`).max(max, `must be at most ${max}`))
    .default(fallback);

export const idParam = z.string().min(1).max(200);

/** `to` must come after `from` (to is exclusive). */
export const rangeRefine = (q: { from?: number; to?: number }, c: z.RefinementCtx) => {
  if (q.from !== undefined && q.to !== undefined && q.from >= q.to)
    c.addIssue({ code: 'custom', path: ['to'], message: 'must be after from (to is exclusive)' });
};

export const queryOf = <S extends z.ZodType>(deps: AppDeps, schema: S, req: Request): z.output<S> => parseQuery(schema, new URL(req.url), deps.svc.config.wire);

export const totalPages = (total: number, limit: number) => Math.max(1, Math.ceil(total / limit));
