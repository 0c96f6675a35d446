// The server's Prometheus metrics, one registry per process. Counters move where the events happen (a request ends,
// a call is settled, a limit refuses, an upstream fails); gauges are read only when /metrics is scraped (collect
// callbacks), so nothing is computed per request for them. Labels are bounded: route patterns (never raw paths),
// catalogue model ids, error kinds and limit types.
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

export const registry = new Registry();

// Counters move only once a server of this process serves /metrics (LAGOON_METRICS=1): with it off nobody can read
// them, and their label lookups were 1–2 % of an API request's CPU (perf, the bench's throughput run).
let counting = false;

/** From now on the counters move (createService calls it when metrics are on; it never turns them off again). */
export function countMetrics(): void {
  counting = true;
}

const requests = new Counter({
  name: 'lagoon_http_requests_total',
  help: 'API requests answered (/api/v1 and /api/app), by method, route pattern and status',
  labelNames: ['method', 'route', 'status'] as const,
  registers: [registry],
});

const duration = new Histogram({
  name: 'lagoon_http_request_duration_seconds',
  help: 'Time from the request line to the end of the answer (a stream: its last event), by method, route pattern and status',
  labelNames: ['method', 'route', 'status'] as const,
  // From a cached key lookup to a long generation.
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
  registers: [registry],
});

const tokens = new Counter({
  name: 'lagoon_tokens_total',
  help: 'Tokens billed, by model and kind (prompt, completion, cached prompt)',
  labelNames: ['model', 'kind'] as const,
  registers: [registry],
});

const costUsd = new Counter({ name: 'lagoon_cost_usd_total', help: 'USD charged, by model', labelNames: ['model'] as const, registers: [registry] });
const costDiem = new Counter({ name: 'lagoon_cost_diem_total', help: 'DIEM charged, by model', labelNames: ['model'] as const, registers: [registry] });

const upstreamErrors = new Counter({
  name: 'lagoon_upstream_errors_total',
  help: 'Engine and upstream failures, by kind (failed, timeout, capacity, bad_request, context_length)',
  labelNames: ['kind'] as const,
  registers: [registry],
});

const refusals = new Counter({
  name: 'lagoon_rate_limit_refusals_total',
  help: 'Requests refused by a rate limit (RPM, RPD, TPM), and abuse blocks started (FAILED_REQUESTS)',
  labelNames: ['type'] as const,
  registers: [registry],
});

const toolCalls = new Counter({
  name: 'lagoon_tool_calls_total',
  help: 'Server-side tool calls of the chat app, by source (mcp, builtin) and outcome (done, error)',
  labelNames: ['source', 'status'] as const,
  registers: [registry],
});

const holds = new Gauge({
  name: 'lagoon_ledger_holds_open',
  help: 'Metered calls of this instance holding credit: reserved, not yet settled or released',
  registers: [registry],
});

/** What the scrape-time gauges read: set by the endpoint for the service being scraped. */
export interface GaugeSources {
  /** Requests waiting for an engine slot, and running on one, over every engine queue of this process. */
  engineQueues(): { waiting: number; running: number };
  /** Durable jobs queued and running, over the whole store. */
  jobCounts(): Promise<{ queued: number; running: number }>;
  /** Every fleet's replicas (models with several base URLs), by model id. */
  fleets?(): Record<string, ReplicaGauge[]>;
}

let sources: GaugeSources | undefined;

/** One replica of a fleet as the gauges read it (lib/engines/text/fleet). */
export interface ReplicaGauge {
  replica: string;
  state: 'healthy' | 'ejected' | 'probing';
  outstanding: number;
  queue?: number;
  kvUsage?: number;
}

const replicaSource = (): Record<string, ReplicaGauge[]> => sources?.fleets?.() ?? {};

const replicaAttempts = new Counter({
  name: 'lagoon_replica_attempts_total',
  help: 'Attempts sent to each replica of a fleet, by model, replica (host:port) and outcome (ok, failed, unreachable, neutral)',
  labelNames: ['model', 'replica', 'outcome'] as const,
  registers: [registry],
});

const REPLICA_STATES = ['healthy', 'ejected', 'probing'] as const;

new Gauge({
  name: 'lagoon_replica_up',
  help: 'Each replica of a fleet: 1 in its current state (healthy, ejected, probing), 0 in the others',
  labelNames: ['model', 'replica', 'state'] as const,
  registers: [registry],
  collect() {
    this.reset();
    for (const [model, rs] of Object.entries(replicaSource()))
      for (const r of rs) for (const state of REPLICA_STATES) this.set({ model, replica: r.replica, state }, r.state === state ? 1 : 0);
  },
});

new Gauge({
  name: 'lagoon_replica_outstanding',
  help: 'Requests this instance has in flight on each replica of a fleet',
  labelNames: ['model', 'replica'] as const,
  registers: [registry],
  collect() {
    this.reset();
    for (const [model, rs] of Object.entries(replicaSource())) for (const r of rs) this.set({ model, replica: r.replica }, r.outstanding);
  },
});

new Gauge({
  name: 'lagoon_replica_engine_queue',
  help: "Requests waiting inside each replica's engine, from its own vLLM/SGLang /metrics (absent when it serves none)",
  labelNames: ['model', 'replica'] as const,
  registers: [registry],
  collect() {
    this.reset();
    for (const [model, rs] of Object.entries(replicaSource())) for (const r of rs) if (r.queue !== undefined) this.set({ model, replica: r.replica }, r.queue);
  },
});

new Gauge({
  name: 'lagoon_replica_kv_cache_usage',
  help: "KV-cache use (0..1) of each replica's engine, from its own vLLM/SGLang /metrics (absent when it serves none)",
  labelNames: ['model', 'replica'] as const,
  registers: [registry],
  collect() {
    this.reset();
    for (const [model, rs] of Object.entries(replicaSource()))
      for (const r of rs) if (r.kvUsage !== undefined) this.set({ model, replica: r.replica }, r.kvUsage);
  },
});

export const recordReplicaAttempt = (model: string, replica: string, outcome: string): void => {
  if (counting) replicaAttempts.inc({ model, replica, outcome });
};

new Gauge({
  name: 'lagoon_engine_queue_depth',
  help: 'Requests waiting for an engine slot (all engines of this instance)',
  registers: [registry],
  collect() {
    this.set(sources?.engineQueues().waiting ?? 0);
  },
});

new Gauge({
  name: 'lagoon_engine_requests_running',
  help: 'Requests holding an engine slot (all engines of this instance)',
  registers: [registry],
  collect() {
    this.set(sources?.engineQueues().running ?? 0);
  },
});

new Gauge({
  name: 'lagoon_jobs',
  help: 'Durable jobs (video, long audio) by status, over every instance sharing the store',
  labelNames: ['status'] as const,
  registers: [registry],
  async collect() {
    if (!sources) return;
    const n = await sources.jobCounts();
    this.set({ status: 'queued' }, n.queued);
    this.set({ status: 'running' }, n.running);
  },
});

let defaults = false;

/** The text exposition, with the gauges read from `from`. */
export async function exposition(from: GaugeSources): Promise<string> {
  // Process metrics (CPU, memory, event-loop lag) start with the first scrape: a server that is never scraped keeps
  // no monitors running for them.
  if (!defaults) {
    collectDefaultMetrics({ register: registry, prefix: 'lagoon_' });
    defaults = true;
  }
  sources = from;
  return registry.metrics();
}

export const contentType = registry.contentType;

// Request series: the label children are looked up in nested maps (no key strings built per request); prom-client's
// own lookup hashes the labels object on every call.
interface Series {
  count: { inc(): void };
  time: { observe(v: number): void };
}
const series = new Map<string, Map<string, Map<number, Series>>>();

/** One answered request: `route` is the matched pattern (or a fixed word), never the raw path. */
export function recordRequest(method: string, route: string, status: number, seconds: number): void {
  if (!counting) return;
  let byMethod = series.get(route);
  if (!byMethod) series.set(route, (byMethod = new Map()));
  let byStatus = byMethod.get(method);
  if (!byStatus) byMethod.set(method, (byStatus = new Map()));
  let s = byStatus.get(status);
  if (!s) {
    const labels = { method, route, status: String(status) };
    s = { count: requests.labels(labels), time: duration.labels(labels) };
    byStatus.set(status, s);
  }
  s.count.inc();
  s.time.observe(seconds);
}

/** A settled call: its tokens and its charge (micro-units). */
export function recordUsage(model: string, t: { prompt: number; completion: number; cached: number }, charge: { usd: number; diem: number }): void {
  if (!counting) return;
  if (t.prompt) tokens.inc({ model, kind: 'prompt' }, t.prompt);
  if (t.completion) tokens.inc({ model, kind: 'completion' }, t.completion);
  if (t.cached) tokens.inc({ model, kind: 'cached' }, t.cached);
  if (charge.usd) costUsd.inc({ model }, charge.usd / 1e6);
  if (charge.diem) costDiem.inc({ model }, charge.diem / 1e6);
}

export const recordUpstreamError = (kind: string): void => {
  if (counting) upstreamErrors.inc({ kind });
};
export const recordRefusal = (type: string): void => {
  if (counting) refusals.inc({ type });
};
export const recordToolCall = (source: 'mcp' | 'builtin', status: 'done' | 'error'): void => {
  if (counting) toolCalls.inc({ source, status });
};
export const holdOpened = (): void => {
  if (counting) holds.inc();
};
export const holdClosed = (): void => {
  if (counting) holds.dec();
};
