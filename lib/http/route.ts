// What a /api/v1 route declares, and the one place those declarations are enforced, in the same order for every
// route: the caller is authenticated (a blocked key or IP hears 429 first), then the route's budget is taken.
import { ApiError } from '../api/errors.ts';
import { type RequestCtx, limitByIp, requireAdmin, requireCaller, requireKey, requireWallet, signInHeader } from './context.ts';
import type { Reply } from './reply.ts';

/** A handler answers with a Reply; lib/http/reply.ts#sendReply is the one writer. */
export type Handler = (ctx: RequestCtx) => Promise<Reply>;

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

export interface ApiRoute {
  auth: Auth;
  limit: LimitClass;
  /** Beta endpoints say so in a header on every answer, errors included. */
  beta?: boolean;
  handler: Handler;
}

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
