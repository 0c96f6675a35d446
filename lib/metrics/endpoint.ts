// GET /metrics: the Prometheus text exposition. Off unless LAGOON_METRICS=1 (then 404, as if there were no such
// path); with LAGOON_METRICS_TOKEN it asks for that bearer token, without one it answers loopback clients only (a
// Prometheus on the same host, or a sidecar), so enabling it never publishes the figures by accident.
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError } from '../api/errors.ts';
import type { Store } from '../db/store.ts';
import { engineQueueTotals } from '../engines/queue.ts';
import { fleetSnapshots } from '../engines/text/fleet/fleet.ts';
import { contentType, exposition, type GaugeSources } from './registry.ts';

export const METRICS_PATH = '/metrics';

export interface MetricsDeps {
  config: { metrics: { enabled: boolean; token: string | undefined } };
  store: Store;
}

/** The addresses of this machine's own clients (a proxy's forwarded address is never one: the socket's peer is). */
export const LOOPBACK: ReadonlySet<string> = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);

function refuse(res: ServerResponse, err: ApiError, headers: Record<string, string> = {}): void {
  const body = JSON.stringify(err.toBody());
  res.writeHead(err.status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), ...headers }).end(body);
}

/** Whether an Authorization header carries `Bearer <token>`, compared in constant time. */
export function tokenMatches(header: string | undefined, token: string): boolean {
  const m = /^Bearer\s+(.+)$/i.exec(header ?? '');
  if (!m) return false;
  const given = Buffer.from(m[1].trim());
  const wanted = Buffer.from(token);
  return given.length === wanted.length && timingSafeEqual(given, wanted);
}

/** Durable jobs by status. An operator-wide count (no account's data leaves it), like the workers' own claim query. */
async function jobCounts(store: Store): Promise<{ queued: number; running: number }> {
  const rows = await store.all<{ status: string; n: number | string }>(
    "SELECT status, COUNT(*) AS n FROM jobs WHERE status IN ('queued', 'running') GROUP BY status",
  );
  const n = (s: string) => Number(rows.find((r) => r.status === s)?.n ?? 0);
  return { queued: n('queued'), running: n('running') };
}

export async function serveMetrics(deps: MetricsDeps, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const { enabled, token } = deps.config.metrics;
  if (!enabled) return refuse(res, new ApiError('NOT_FOUND', 'Metrics are not enabled on this server (LAGOON_METRICS=1)'));
  if (req.method !== 'GET' && req.method !== 'HEAD') return refuse(res, new ApiError('METHOD_NOT_ALLOWED'), { allow: 'GET, HEAD' });
  if (token) {
    if (!tokenMatches(req.headers.authorization, token))
      return refuse(res, new ApiError('AUTHENTICATION_FAILED', 'Metrics need Authorization: Bearer <LAGOON_METRICS_TOKEN>'), {
        'www-authenticate': 'Bearer',
      });
  } else if (!LOOPBACK.has(req.socket.remoteAddress ?? '')) {
    return refuse(res, new ApiError('FORBIDDEN', 'Metrics are served to loopback clients only unless LAGOON_METRICS_TOKEN is set'));
  }
  const sources: GaugeSources = { engineQueues: engineQueueTotals, jobCounts: () => jobCounts(deps.store), fleets: fleetSnapshots };
  let text: string;
  try {
    text = await exposition(sources);
  } catch {
    return refuse(res, new ApiError('UNKNOWN_ERROR', 'The metrics could not be collected'));
  }
  res.writeHead(200, { 'content-type': contentType, 'content-length': Buffer.byteLength(text), 'cache-control': 'no-store' });
  res.end(req.method === 'HEAD' ? undefined : text);
}
