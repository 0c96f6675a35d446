// Per-request state of the API layer, and the authentication helpers handlers call.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError } from '../api/errors.ts';
import type { HeaderContext, HeaderMap } from '../api/headers.ts';
import { authenticate, bearerToken, type Principal } from '../auth/keys.ts';
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
}

export async function requireKey(ctx: RequestCtx): Promise<Principal> {
  return authenticate(ctx.svc.store, bearerToken(ctx.req.headers.authorization));
}

export async function requireAdmin(ctx: RequestCtx): Promise<Principal> {
  const p = await requireKey(ctx);
  if (p.keyType !== 'ADMIN') throw new ApiError('ADMIN_KEY_REQUIRED');
  return p;
}

export const jsonBody = (ctx: RequestCtx): Promise<unknown> => readJson(ctx.req, ctx.svc.config.maxBodyBytes);
