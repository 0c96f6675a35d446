// Per-request state of the API layer, and the authentication helpers handlers call. Authentication is also where
// the abuse block applies (per key, or per client IP when no valid key was given) and where the management
// endpoints take from their request budget.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError } from '../api/errors.ts';
import type { HeaderContext, HeaderMap } from '../api/headers.ts';
import { authenticate, bearerToken, type Principal } from '../auth/keys.ts';
import { recordBreach } from '../limits/breach-log.ts';
import { rateLimitTypeOf } from '../limits/rate-limiter.ts';
import type { Service } from '../service.ts';
import { readJson } from './body.ts';

export interface RequestCtx {
  req: IncomingMessage;
  res: ServerResponse;
  svc: Service;
  url: URL;
  /** Path parameters (e.g. `slug`). */
  params: Record<string, string>;
  requestId: string;
  headerCtx: HeaderContext;
  /** Headers the handler adds to its response (merged with the base headers when sending). */
  extraHeaders: HeaderMap;
  /** Aborts when the client disconnects before the response is finished. */
  signal: AbortSignal;
  /** Set once a key authenticated: failures then count against the key rather than the client IP. */
  principal?: Principal;
}

export const clientIp = (ctx: RequestCtx): string => ctx.req.socket.remoteAddress ?? 'unknown';
export const abuseId = (ctx: RequestCtx): string => (ctx.principal ? `key:${ctx.principal.keyId}` : `ip:${clientIp(ctx)}`);

/**
 * Authenticates the bearer key. `limit: 'api'` (the default) also takes one request from the credential's
 * management-endpoint budget and sets its x-ratelimit headers; inference handlers pass 'none' and admit per model.
 */
export async function requireKey(ctx: RequestCtx, opts: { limit?: 'api' | 'none' } = {}): Promise<Principal> {
  let principal: Principal;
  try {
    principal = await authenticate(ctx.svc.store, bearerToken(ctx.req.headers.authorization));
  } catch (e) {
    await ctx.svc.abuse.check(abuseId(ctx)); // a blocked IP hears 429, not another 401
    throw e;
  }
  ctx.principal = principal;
  await ctx.svc.abuse.check(abuseId(ctx));
  if ((opts.limit ?? 'api') === 'api') {
    const subject = { credential: principal.keyId, modelId: `endpoint:${ctx.url.pathname}`, model: 'api' as const, tier: tierOf(principal) };
    try {
      Object.assign(ctx.extraHeaders, (await ctx.svc.limiter.admit(subject, 0)).headers);
    } catch (e) {
      logBreach(ctx, 'endpoint:api', e);
      throw e;
    }
  }
  return principal;
}

export async function requireAdmin(ctx: RequestCtx): Promise<Principal> {
  const p = await requireKey(ctx);
  if (p.keyType !== 'ADMIN') throw new ApiError('ADMIN_KEY_REQUIRED');
  return p;
}

export const tierOf = (p: Principal): 'default' | 'partner' => (p.accountTier === 'partner' ? 'partner' : 'default');

/** Records a rate-limit refusal in the account's breach log (off the request path). */
export function logBreach(ctx: RequestCtx, modelId: string, e: unknown): void {
  const type = rateLimitTypeOf(e);
  if (!type || !ctx.principal) return;
  const p = ctx.principal;
  recordBreach(ctx.svc.store, { accountId: p.accountId, keyId: p.keyId, modelId, type, tier: tierOf(p) }).catch((err) =>
    console.error('could not record a rate-limit breach:', err),
  );
}

export const jsonBody = (ctx: RequestCtx): Promise<unknown> => readJson(ctx.req, ctx.svc.config.maxBodyBytes);
