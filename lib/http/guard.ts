// The server-level guard around every API and app request: whatever a handler does, it ends here. An error before
// the head is answered in our error body; an error after the response began ends that response (its socket), is
// logged, and goes no further; an error while answering the error does the same. Nothing a request does can reject
// out of its handler, so no request can stop or wedge the process (issue 28).
//
// It also applies the delivery policy (zero-completion insurance): a request is not charged for an answer that the
// server's own failure kept from its client — an error answer that replaced the reply, or a whole reply (one whose head
// declared its length) cut because its handler failed. A stream is charged for what it delivered (the chat stream
// settles its partial output), and a client that hangs up is charged for work it asked for and that was done (what
// OpenAI does; an Idempotency-Key retry then replays that answer rather than paying again).
import { ApiError, toApiError } from '../api/errors.ts';
import { log } from '../log.ts';
import type { RequestCtx } from './context.ts';
import type { SafeResponse } from './safe-response.ts';
import { fail } from './send.ts';

/**
 * Answers or ends a failed request; never throws. Returns whether the failure kept the answer from its client: an error
 * answer replaced the reply, or a whole reply was cut (a stream keeps what it delivered).
 */
export function endFailed(ctx: RequestCtx, e: unknown): boolean {
  const res = ctx.res as SafeResponse;
  try {
    if (!(e instanceof ApiError)) log.error({ requestId: ctx.requestId, method: ctx.req.method, route: ctx.route, err: e }, 'request failed');
    if (!res.headersSent) {
      fail(ctx, toApiError(e));
      return true;
    }
  } catch (again) {
    log.error({ requestId: ctx.requestId, route: ctx.route, err: again }, 'could not answer a failed request; its connection is closed');
  }
  const whole = !res.headersSent || res.wholeBody;
  res.destroy();
  return whole;
}

/** Refunds what the request was charged when the server's failure kept its answer from the client; never throws. */
function settleDelivery(ctx: RequestCtx, undelivered: boolean): void {
  ctx.svc.ledger.delivered(ctx.requestId, !undelivered)?.then(
    (back) => log.warn({ requestId: ctx.requestId, refunded: back }, 'answer not delivered: its charge was refunded'),
    (err) => log.error({ requestId: ctx.requestId, err }, 'could not refund an undelivered answer'),
  );
}

/**
 * Runs a request's handler under the guard; `after` runs once it ended (metrics, the abuse count, the log line).
 * Resolves in every case.
 */
export async function guard(ctx: RequestCtx, run: () => Promise<void>, after: (ctx: RequestCtx) => void): Promise<void> {
  let undelivered = false;
  ctx.svc.ledger.watch(ctx.requestId);
  try {
    await run();
  } catch (e) {
    undelivered = endFailed(ctx, e);
  }
  try {
    settleDelivery(ctx, undelivered);
    after(ctx);
  } catch (e) {
    log.error({ requestId: ctx.requestId, err: e }, 'request bookkeeping failed');
  }
}
