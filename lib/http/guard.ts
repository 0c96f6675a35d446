// The server-level guard around every API and app request: whatever a handler does, it ends here. An error before
// the head is answered in our error body; an error after the response began ends that response (its socket), is
// logged, and goes no further; an error while answering the error does the same. Nothing a request does can reject
// out of its handler, so no request can stop or wedge the process (issue 28).
//
// It also applies the delivery policy (zero-completion insurance): a request is not charged for an answer its client
// did not receive — an error answer that replaced the reply, or a whole reply (one whose head declared its length)
// that did not go out in full. A stream is charged for what it delivered (the chat stream settles its partial output).
import { ApiError, toApiError } from '../api/errors.ts';
import { log } from '../log.ts';
import type { RequestCtx } from './context.ts';
import type { SafeResponse } from './safe-response.ts';
import { fail } from './send.ts';

/** Answers or ends a failed request; never throws. Returns whether an error answer replaced the reply. */
export function endFailed(ctx: RequestCtx, e: unknown): boolean {
  const res = ctx.res;
  try {
    if (!(e instanceof ApiError)) log.error({ requestId: ctx.requestId, method: ctx.req.method, route: ctx.route, err: e }, 'request failed');
    if (!res.headersSent) {
      fail(ctx, toApiError(e));
      return true;
    }
  } catch (again) {
    log.error({ requestId: ctx.requestId, route: ctx.route, err: again }, 'could not answer a failed request; its connection is closed');
  }
  res.destroy();
  return !res.headersSent;
}

/** Applies the delivery policy once the request's outcome is known; never throws. */
function settleDelivery(ctx: RequestCtx, replacedByError: boolean): void {
  const ledger = ctx.svc.ledger;
  const report = (refund: Promise<unknown> | undefined) =>
    refund?.then(
      (back) => log.warn({ requestId: ctx.requestId, refunded: back }, 'answer not delivered: its charge was refunded'),
      (err) => log.error({ requestId: ctx.requestId, err }, 'could not refund an undelivered answer'),
    );
  if (replacedByError) return void report(ledger.delivered(ctx.requestId, false));
  const res = ctx.res as SafeResponse;
  if (res.writableFinished || res.destroyed) return void report(ledger.delivered(ctx.requestId, res.writableFinished || !res.wholeBody));
  res.once('close', () => void report(ledger.delivered(ctx.requestId, res.writableFinished || !res.wholeBody)));
}

/**
 * Runs a request's handler under the guard; `after` runs once it ended (metrics, the abuse count, the log line).
 * Resolves in every case.
 */
export async function guard(ctx: RequestCtx, run: () => Promise<void>, after: (ctx: RequestCtx) => void): Promise<void> {
  let replacedByError = false;
  ctx.svc.ledger.watch(ctx.requestId);
  try {
    await run();
  } catch (e) {
    replacedByError = endFailed(ctx, e);
  }
  try {
    settleDelivery(ctx, replacedByError);
    after(ctx);
  } catch (e) {
    log.error({ requestId: ctx.requestId, err: e }, 'request bookkeeping failed');
  }
}
