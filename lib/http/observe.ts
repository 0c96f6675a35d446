// What the server records when an API request ends: its metrics (when enabled) and its log line (at `info`). Called
// once per request from server.ts, so it stays cheap: no timers or listeners, the start time read back from the
// request id (its first 11 hex digits are the ms clock at arrival), and no line built when the level drops it.
// A line names the request, never its content: id, method, route pattern, status, duration, account, model.
import { log, logs, modelOf } from '../log.ts';
import { recordRequest } from '../metrics/registry.ts';
import type { RequestCtx } from './context.ts';

/** Requests no route matched (404, 405): one label, whatever the path. */
const UNMATCHED = 'unmatched';

/** When the request arrived (ms since the epoch), from its id: request-id.ts starts it with that clock. */
export const arrivedAt = (requestId: string): number => Number.parseInt(requestId.slice(0, 11), 16);

export function observeRequest(ctx: RequestCtx): void {
  const ms = Date.now() - arrivedAt(ctx.requestId);
  const method = ctx.req.method ?? 'GET';
  const route = ctx.route ?? UNMATCHED;
  const status = ctx.res.statusCode;
  if (ctx.svc.config.metrics.enabled) recordRequest(method, route, status, ms / 1000);
  if (!logs('info')) return;
  log.info(
    {
      requestId: ctx.requestId,
      method,
      route,
      status,
      ms,
      account: ctx.principal?.accountId,
      model: modelOf(ctx.extraHeaders),
      // The client went away before the answer ended (the status is what had been sent).
      aborted: ctx.signal.aborted || undefined,
    },
    'request',
  );
}
