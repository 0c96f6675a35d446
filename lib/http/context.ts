// Per-request state of the API layer, and the authentication helpers handlers call. Authentication is also where
// the abuse block applies (per key, or per client IP when no valid key was given) and where the management
// endpoints take from their request budget.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError, isApiError } from '../api/errors.ts';
import type { HeaderContext, HeaderMap } from '../api/headers.ts';
import { authenticate, bearerToken, type Principal } from '../auth/keys.ts';
import { microsToString } from '../billing/money.ts';
import { recordBreach } from '../limits/breach-log.ts';
import { rateLimitTypeOf } from '../limits/rate-limiter.ts';
import type { Service } from '../service.ts';
import { PAYMENT_HEADERS, SIGN_IN_HEADERS } from '../wallet/service.ts';
import type { Wallet } from '../wallet/wallets.ts';
import { log } from '../log.ts';
import type { SessionCtx } from './app-route.ts';
import { readJson, readJsonWithBytes } from './body.ts';

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
  /** Aborts when the client disconnects before the response is finished (unless detached). */
  signal: AbortSignal;
  /** From now on a disconnect does not abort the work (an Idempotency-Key request runs to its end, to be replayed). */
  detach(): void;
  /** Set once a key authenticated: failures then count against the key rather than the client IP. */
  principal?: Principal;
  /**
   * Response headers whose values are set only after the work (the PAYMENT-RESPONSE of a payment settled after it):
   * a stream, whose head leaves first, sends them as trailers and SSE comment lines (sse-pipe.ts).
   */
  lateHeaders?: string[];
  /** Set when the caller signed in with a wallet (SIGN-IN-WITH-X); principal is then the wallet's. */
  wallet?: Wallet;
  /** The client's address (the socket's peer, or the trusted proxy's X-Forwarded-For entry). */
  ip: string;
  /** The matched route's pattern (`/api/v1/api_keys/:id`), for the request's log line and metrics. */
  route?: string;
  /** The browser app's session, read once from the cookie (null: none, or not valid); unset on /api/v1. */
  session?: SessionCtx | null;
}

export const clientIp = (ctx: RequestCtx): string => ctx.ip;
/**
 * Whom the abuse block counts and blocks: the credential when there is one (a key, a signed-in wallet's principal, an
 * app session), the address only for anonymous requests, so failures from one client never lock out another behind
 * the same address.
 */
export const abuseId = (ctx: RequestCtx): string =>
  ctx.principal ? `key:${ctx.principal.keyId}` : ctx.session ? `session:${ctx.session.user.id}` : `ip:${clientIp(ctx)}`;

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
  if ((opts.limit ?? 'api') === 'api') await takeApiBudget(ctx, principal);
  return principal;
}

/** One request from the credential's management-endpoint budget, with its x-ratelimit headers. */
async function takeApiBudget(ctx: RequestCtx, principal: Principal): Promise<void> {
  const subject = { credential: principal.keyId, modelId: `endpoint:${ctx.url.pathname}`, model: 'api' as const, tier: tierOf(principal) };
  try {
    Object.assign(ctx.extraHeaders, (await ctx.svc.limiter.admit(subject, 0)).headers);
  } catch (e) {
    logBreach(ctx, 'endpoint:api', e);
    throw e;
  }
}

export async function requireAdmin(ctx: RequestCtx, opts: { limit?: 'api' | 'none' } = {}): Promise<Principal> {
  const p = await requireKey(ctx, opts);
  if (p.keyType !== 'ADMIN') throw new ApiError('ADMIN_KEY_REQUIRED');
  return p;
}

/** The caller the route's declared auth established (lib/http/route.ts ran before the handler). */
export function principalOf(ctx: RequestCtx): Principal {
  if (!ctx.principal) throw new Error(`${ctx.url.pathname}: the route declares no authentication but its handler needs a caller`);
  return ctx.principal;
}

/** The signed-in wallet of a route declared `auth: 'wallet'`. */
export function walletOf(ctx: RequestCtx): Wallet {
  if (!ctx.wallet) throw new Error(`${ctx.url.pathname}: the route declares no wallet sign-in but its handler needs one`);
  return ctx.wallet;
}

export const tierOf = (p: Principal): 'default' | 'partner' => (p.accountTier === 'partner' ? 'partner' : 'default');

/** Records a rate-limit refusal in the account's breach log (off the request path). */
export function logBreach(ctx: RequestCtx, modelId: string, e: unknown): void {
  const type = rateLimitTypeOf(e);
  if (!type || !ctx.principal) return;
  const p = ctx.principal;
  recordBreach(ctx.svc.store, { accountId: p.accountId, keyId: p.keyId, modelId, type, tier: tierOf(p) }).catch((err) =>
    log.error({ err }, 'could not record a rate-limit breach'),
  );
}

export const jsonBody = (ctx: RequestCtx): Promise<unknown> => readJson(ctx.req, ctx.svc.config.maxBodyBytes);

/** The JSON body and its bytes as they came. */
export const jsonBodyWithBytes = (ctx: RequestCtx): Promise<{ value: unknown; bytes: Buffer }> => readJsonWithBytes(ctx.req, ctx.svc.config.maxBodyBytes);

/** The SIGN-IN-WITH-X header (or its legacy name), when the request carries one. */
export function signInHeader(ctx: RequestCtx): string | undefined {
  for (const name of SIGN_IN_HEADERS) {
    const v = ctx.req.headers[name];
    if (typeof v === 'string') return v;
  }
  return undefined;
}

/**
 * Verifies the request's SIGN-IN-WITH-X header (consuming its nonce) and makes the wallet the caller. As for keys,
 * `limit: 'api'` (the default) takes one request from the wallet's management-endpoint budget.
 */
export async function requireWallet(
  ctx: RequestCtx,
  opts: { header?: string; limit?: 'api' | 'none' } = {},
): Promise<{ principal: Principal; wallet: Wallet }> {
  const header = opts.header ?? signInHeader(ctx);
  if (header === undefined) {
    // The public API answers its wallet-only routes (balance, statement) with 401 when no sign-in is sent, and
    // deployed clients rely on it; otherwise the discovery 402 tells the client how to sign in.
    if (ctx.svc.wallet.publicShapes) throw new ApiError('X402_SIGN_IN_INVALID_SIGNATURE');
    throw await ctx.svc.wallet.authenticationRequired(ctx.url.pathname);
  }
  let signed;
  try {
    signed = await ctx.svc.wallet.signIn(header);
  } catch (e) {
    await ctx.svc.abuse.check(abuseId(ctx));
    throw e;
  }
  ctx.principal = signed.principal;
  ctx.wallet = signed.wallet;
  await ctx.svc.abuse.check(abuseId(ctx));
  if ((opts.limit ?? 'api') === 'api') await takeApiBudget(ctx, signed.principal);
  return signed;
}

/**
 * The caller of an inference endpoint: a wallet when SIGN-IN-WITH-X is sent (it wins over a bearer key), else the
 * bearer key. With neither, the answer is the x402 discovery 402 (how to pay, and a sign-in challenge), not a 401;
 * where x402 per request is on, a priced 402 for this very request instead, and a payment header pays for it.
 */
export async function requireCaller(ctx: RequestCtx): Promise<Principal> {
  const siwx = signInHeader(ctx);
  const credentials = siwx !== undefined || ctx.req.headers.authorization !== undefined;
  // x402 per request (lib/wallet/per-request.ts): a request with no other credentials may pay for itself.
  const scheme = credentials ? undefined : ctx.svc.wallet.requestScheme(ctx.url.pathname);
  const payment = PAYMENT_HEADERS.map((name) => ({ name, value: ctx.req.headers[name] })).find((h) => h.value !== undefined);
  if (payment) {
    if (!scheme || typeof payment.value !== 'string') throw new ApiError('PAYMENT_HEADER_NOT_ACCEPTED');
    const header = { name: payment.name, value: payment.value };
    const idempotent = ctx.req.headers['idempotency-key'] !== undefined;
    const paid = await ctx.svc.wallet.paidCaller({ path: ctx.url.pathname, scheme, header, requestId: ctx.requestId, headers: ctx.extraHeaders, idempotent });
    ctx.principal = paid.principal;
    ctx.wallet = paid.wallet;
    ctx.lateHeaders = paid.lateHeaders;
    return paid.principal;
  }
  if (siwx !== undefined) return (await requireWallet(ctx, { header: siwx, limit: 'none' })).principal;
  if (!ctx.req.headers.authorization) {
    if (scheme) return (ctx.principal = await ctx.svc.wallet.quoteCaller(ctx.url.pathname, scheme, ctx.requestId));
    throw await ctx.svc.wallet.authenticationRequired(ctx.url.pathname);
  }
  return requireKey(ctx, { limit: 'none' });
}

/** Runs paid work; a wallet short of credit gets the wallet 402 (how to top up, a fresh challenge) instead of the key one. */
export async function withWalletCredit<T>(ctx: RequestCtx, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (e) {
    if (ctx.wallet && ctx.principal && isApiError(e) && e.code === 'INSUFFICIENT_BALANCE') {
      throw await ctx.svc.wallet.insufficientCredit(ctx.principal.accountId, ctx.url.pathname);
    }
    throw e;
  }
}

/** X-Balance-Remaining on wallet-authenticated responses: USD left after the request. */
export function setBalanceRemaining(ctx: RequestCtx, micros: number): void {
  if (ctx.wallet) ctx.extraHeaders['X-Balance-Remaining'] = microsToString(Math.max(0, micros));
}

/** Endpoints open to anyone (challenges, top-ups) are limited per client IP, from the management-endpoint budget. */
export async function limitByIp(ctx: RequestCtx): Promise<void> {
  const subject = { credential: `ip:${clientIp(ctx)}`, modelId: `endpoint:${ctx.url.pathname}`, model: 'api' as const, tier: 'default' as const };
  Object.assign(ctx.extraHeaders, (await ctx.svc.limiter.admit(subject, 0)).headers);
}
