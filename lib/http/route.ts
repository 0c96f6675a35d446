// What a /api/v1 route declares, and the one place those declarations are enforced, in the same order for every
// route: the caller is authenticated (a blocked key or IP hears 429 first), then the route's budget is taken.
import type { z } from 'zod';
import { ApiError } from '../api/errors.ts';
import { queryObject } from '../api/query.ts';
import { parseOrThrow } from '../api/validation.ts';
import { type RequestCtx, jsonBody, limitByIp, requireAdmin, requireCaller, requireKey, requireWallet, signInHeader } from './context.ts';
import type { Reply } from './reply.ts';

/** What the route declared, parsed before the handler runs. */
export interface ApiInput<B, Q> {
  body: B;
  query: Q;
}

/** A handler answers with a Reply; lib/http/reply.ts#sendReply is the one writer. */
export type Handler<B = unknown, Q = unknown> = (ctx: RequestCtx, input: ApiInput<B, Q>) => Promise<Reply>;

/**
 * A JSON body's schema; `none` for a POST that reads no body (a payment travels in a header); or `own`: the handler reads the body itself, because an inference pipeline validates it (the
 * browser app runs the same pipeline, so the schema lives there), it may be multipart, or its exact bytes matter
 * (E2EE forwards them sealed).
 */
export type BodyDecl<B> = z.ZodType<B> | 'own' | 'none';

/**
 * The query string's schema, read as one value per name (a repeated name is a 400; lib/api/query.ts), or with a
 * reader of the route's own for list parameters (`tags[]=a&tags[]=b`).
 */
export type QueryDecl<Q> = z.ZodType<Q> | { read: (url: URL) => unknown; schema: z.ZodType<Q> };

/**
 * - `none`: anyone;
 * - `key`: a bearer key; `admin`: a bearer ADMIN key;
 * - `wallet`: a SIGN-IN-WITH-X wallet;
 * - `key-or-wallet`: a bearer key, or a SIGN-IN-WITH-X wallet (which wins), on the management budget (the augment
 *   building blocks, which the public document opens to both);
 * - `caller`: a wallet or a key, and with neither the x402 discovery 402 (inference endpoints).
 */
export type Auth = 'none' | 'key' | 'admin' | 'wallet' | 'key-or-wallet' | 'caller';

/**
 * - `api`: one request from the credential's management-endpoint budget;
 * - `ip`: the same budget, per client IP (routes open to anyone);
 * - `model`: admitted per model by the inference pipeline (requests and tokens);
 * - `rpc`: admitted per caller by the JSON-RPC proxy (requests per minute, credits per 24 h; lib/crypto-rpc);
 * - `none`: public reads.
 */
export type LimitClass = 'api' | 'ip' | 'model' | 'rpc' | 'none';

export interface ApiRoute<B = any, Q = any> {
  auth: Auth;
  limit: LimitClass;
  /** Beta endpoints say so in a header on every answer, errors included. */
  beta?: boolean;
  /** Every route that takes a body declares it (lib/http/api.test.ts checks); a GET has none. */
  body?: BodyDecl<B>;
  /** Undeclared: the route reads no query parameter (and ignores any given, as the public API does). */
  query?: QueryDecl<Q>;
  /** A billed POST: its hashes are kept for its receipt, and an Idempotency-Key replays it (lib/http/billed.ts). */
  billed?: true;
  handler: Handler<B, Q>;
}

/**
 * A route whose handler gets its declared body and query typed. Their types come from the declarations only
 * (NoInfer): a handler that reads a query the route does not declare fails to compile.
 */
export const apiRoute = <B = undefined, Q = undefined>(route: Omit<ApiRoute<B, Q>, 'handler'> & { handler: Handler<NoInfer<B>, NoInfer<Q>> }): ApiRoute<B, Q> =>
  route;

export async function authorize(ctx: RequestCtx, route: ApiRoute): Promise<void> {
  if (route.beta) ctx.extraHeaders[`${ctx.headerCtx.wire.headerPrefix}beta`] = 'true';
  const limit = route.limit === 'api' ? 'api' : 'none';
  switch (route.auth) {
    case 'none':
      break;
    case 'key':
      await requireKey(ctx, { limit });
      break;
    case 'admin':
      await requireAdmin(ctx, { limit });
      break;
    case 'wallet':
      await requireWallet(ctx, { limit });
      break;
    case 'key-or-wallet':
      if (signInHeader(ctx) !== undefined) await requireWallet(ctx, { limit });
      else await requireKey(ctx, { limit });
      break;
    case 'caller':
      if (route.limit === 'api') throw new ApiError('UNKNOWN_ERROR', 'caller routes are admitted per model');
      await requireCaller(ctx);
      break;
  }
  if (route.limit === 'ip') await limitByIp(ctx);
}

/**
 * The declared query and JSON body, validated into the API's one 400 body. Called after authorize(): a refused
 * caller never has its body read.
 */
export async function parseInput(ctx: RequestCtx, route: ApiRoute): Promise<ApiInput<unknown, unknown>> {
  const wire = ctx.headerCtx.wire;
  let query: unknown;
  if (route.query) {
    const decl = route.query;
    query = 'safeParse' in decl ? parseOrThrow(decl, { ...queryObject(ctx.url) }, wire) : parseOrThrow(decl.schema, decl.read(ctx.url), wire);
  }
  let body: unknown;
  if (route.body && typeof route.body !== 'string') body = parseOrThrow(route.body, await jsonBody(ctx), wire);
  return { body, query };
}
