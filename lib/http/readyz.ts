// GET /readyz: readiness, beside /healthz (liveness, which only says the process answers). It reports the store,
// Redis when configured, and each engine's last check. 503 when this instance cannot serve: the store does not
// answer, or every text model's engine is down. One broken engine among working ones is "degraded" with 200: taking
// the instance out of a load balancer would not fix an upstream every instance shares, and would stop the working
// models too (`?strict=1` answers 503 for any broken engine, for deployments that want that). Redis is reported but
// never fails readiness: its outage is fail-open by design (lib/limits/redis.ts), each instance limiting on its own.
//
// Who sees what: anyone gets the status and its code (what a load balancer needs); the checks, which name every model
// and its upstream's failure, and each fleet's replicas (host:port and state) go to loopback clients and to callers
// with LAGOON_METRICS_TOKEN, as /metrics does.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { fleetSnapshots } from '../engines/text/fleet/fleet.ts';
import { LOOPBACK, tokenMatches } from '../metrics/endpoint.ts';
import type { Service } from '../service.ts';

const CHECK_TIMEOUT_MS = 2_000;

interface Check {
  ok: boolean;
  reason?: string;
}

function withTimeout<T>(p: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

async function checkStore(svc: Service): Promise<Check & { kind: string }> {
  try {
    await withTimeout(svc.store.get('SELECT 1 AS one'), 'the store');
    return { ok: true, kind: svc.store.kind };
  } catch (e) {
    // The driver's message may carry the connection string's host; the reason names only what failed.
    const timedOut = /did not answer/.test((e as Error).message);
    return { ok: false, kind: svc.store.kind, reason: timedOut ? (e as Error).message : `the ${svc.store.kind} store failed a query` };
  }
}

async function checkRedis(svc: Service): Promise<Check | undefined> {
  if (!svc.redis) return undefined;
  try {
    await withTimeout(svc.redis.ping(), 'Redis');
    return { ok: true };
  } catch {
    return { ok: false, reason: 'Redis does not answer; rate limits are counted by each instance on its own until it returns' };
  }
}

export async function readiness(svc: Service, strict: boolean) {
  const [store, redis] = await Promise.all([checkStore(svc), checkRedis(svc)]);
  const engines = svc.engineHealth.snapshot();
  const text = svc.catalogue.models.filter((m) => m.type === 'text');
  const someTextUp = text.length === 0 || text.some((m) => engines[m.id]?.ok !== false);
  const allUp = Object.values(engines).every((s) => s.ok);
  const ready = store.ok && someTextUp && (!strict || allUp);
  const status = !ready ? 'not_ready' : allUp && redis?.ok !== false ? 'ready' : 'degraded';
  const checks = {
    store,
    ...(redis ? { redis } : {}),
    engines: Object.fromEntries(
      Object.entries(engines).map(([id, s]) => [
        id,
        {
          ok: s.ok,
          ...(s.reason ? { reason: s.reason } : {}),
          ...(s.note ? { note: s.note } : {}),
          checkedAt: s.checkedAt ? new Date(s.checkedAt).toISOString() : null,
        },
      ]),
    ),
    // Each replica of a model with several (state, requests in flight, ejections): for loopback or the token only.
    replicas: fleetSnapshots(),
  };
  return { code: ready ? 200 : 503, body: { status, checks } };
}

export async function serveReadyz(svc: Service, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'application/json' }).end('{"error":"Method not allowed","code":"METHOD_NOT_ALLOWED"}');
    return;
  }
  const { code, body } = await readiness(svc, url.searchParams.get('strict') === '1');
  const detailed = mayReadDetails(req.socket.remoteAddress, req.headers.authorization, svc.config.metrics.token);
  const text = JSON.stringify(detailed ? body : { status: body.status });
  res.writeHead(code, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', 'content-length': Buffer.byteLength(text) });
  res.end(req.method === 'HEAD' ? undefined : text);
}

/** Whether the caller may read the checks: a loopback client, or one that shows the metrics token. */
export function mayReadDetails(remoteAddress: string | undefined, authorization: string | undefined, token: string | undefined): boolean {
  return LOOPBACK.has(remoteAddress ?? '') || (token !== undefined && token !== '' && tokenMatches(authorization, token));
}
