// Handler-side helpers: send a JSON body or an error with the request's base headers.
import { baseHeaders, errorHeaders } from '../api/headers.ts';
import type { ApiError } from '../api/errors.ts';
import type { RequestCtx } from './context.ts';
import { sendError, sendJson, sendJsonText } from './respond.ts';

export function ok(ctx: RequestCtx, body: unknown, status = 200): void | Promise<void> {
  return sendJson(ctx.req, ctx.res, status, body, { ...baseHeaders(ctx.headerCtx), ...ctx.extraHeaders });
}

/** A JSON body already serialised: text, or its UTF-8 bytes (written in the JSON thread). */
export function okText(ctx: RequestCtx, text: string | Uint8Array, status = 200): void | Promise<void> {
  return sendJsonText(ctx.req, ctx.res, status, text, {
    ...baseHeaders(ctx.headerCtx),
    ...ctx.extraHeaders,
    'content-type': 'application/json; charset=utf-8',
  });
}

export function fail(ctx: RequestCtx, err: ApiError): void {
  sendError(ctx.req, ctx.res, err, { ...baseHeaders(ctx.headerCtx), ...errorHeaders(ctx.headerCtx), ...ctx.extraHeaders });
}

/** An error answered in a body of the route's own layout (a public document that fixes one), with the error's headers. */
export function failWithBody(ctx: RequestCtx, err: ApiError, body: Record<string, unknown>): void {
  sendJson(ctx.req, ctx.res, err.status, body, { ...baseHeaders(ctx.headerCtx), ...errorHeaders(ctx.headerCtx), ...ctx.extraHeaders, ...err.headers });
}
