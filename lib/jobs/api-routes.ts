// The HTTP side of every job kind (lib/jobs): quote, queue, retrieve and complete, written once. A kind's routes are
// `jobRoutes('<kind>')`, declared in api.ts: quote with `auth: 'key', limit: 'api'` (Bearer only, no x402, per the
// reference), the other three with `auth: 'caller', limit: 'model'` (the job service admits them per model).
// Retrieve answers JSON while the job runs and the media bytes once it is done; clients tell them apart by
// Content-Type.
import fs from 'node:fs';
import { ApiError } from '../api/errors.ts';
import { balanceHeaders, modelHeaders } from '../api/headers.ts';
import type { JobCaller } from './service.ts';
import type { ModelEntry } from '../models/schema.ts';
import { jsonBody, principalOf, type RequestCtx, setBalanceRemaining, withWalletCredit } from '../http/context.ts';
import { json } from '../http/reply.ts';
import type { Handler } from '../http/route.ts';

export interface JobRoutes {
  quote: Handler;
  queue: Handler;
  retrieve: Handler;
  complete: Handler;
}

const callerOf = (ctx: RequestCtx): JobCaller => ({
  principal: principalOf(ctx),
  requestId: ctx.requestId,
  responseHeaders: ctx.extraHeaders,
  signal: ctx.signal,
});

/** The model headers; the router names the engine kind (demo-video, openai-videos…). */
const withModel = (ctx: RequestCtx, model: ModelEntry) => Object.assign(ctx.extraHeaders, modelHeaders(ctx.headerCtx, model, model.engine.kind));

/** Wallet callers learn what they have left (held credit excluded). */
async function walletBalance(ctx: RequestCtx): Promise<void> {
  if (!ctx.wallet) return;
  const b = await ctx.svc.ledger.balances(principalOf(ctx).accountId);
  setBalanceRemaining(ctx, b.usd - b.usdHeld);
}

export function jobRoutes(kind: string): JobRoutes {
  return {
    async quote(ctx) {
      return json(ctx.svc.jobs.quote(kind, await jsonBody(ctx)));
    },

    async queue(ctx) {
      const body = await jsonBody(ctx);
      const result = await withWalletCredit(ctx, () => ctx.svc.jobs.queue(kind, callerOf(ctx), body));
      withModel(ctx, result.model);
      Object.assign(ctx.extraHeaders, balanceHeaders(ctx.headerCtx, result.before));
      await walletBalance(ctx);
      return json(result.body);
    },

    async retrieve(ctx) {
      const body = await jsonBody(ctx);
      const r = await ctx.svc.jobs.retrieve(kind, callerOf(ctx), body);
      withModel(ctx, r.model);
      await walletBalance(ctx);
      if (r.status === 'processing') return json(r.body);
      const stream = fs.createReadStream(r.file);
      // A file removed by hand since the job finished: the job is gone (404), not a 500.
      const opened = await new Promise<Error | undefined>((resolve) => {
        stream.once('open', () => resolve(undefined));
        stream.once('error', resolve);
      });
      if (opened) {
        await r.gone();
        throw new ApiError('NOT_FOUND', `The ${kind} job's media are gone (expired or deleted)`, { param: 'queue_id' });
      }
      // A client that goes away midway leaves the media for another retrieve (sent() runs only once all of it left).
      return {
        kind: 'file',
        headers: { 'content-type': r.contentType, 'content-length': String(r.bytes), 'cache-control': 'no-store' },
        stream,
        onSent: () => r.sent(),
      };
    },

    async complete(ctx) {
      const body = await jsonBody(ctx);
      const result = await ctx.svc.jobs.complete(kind, callerOf(ctx), body);
      withModel(ctx, result.model);
      await walletBalance(ctx);
      return json(result.body);
    },
  };
}
