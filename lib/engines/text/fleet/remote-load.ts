// What a replica's own /metrics says about its load, when it serves them: vLLM's and SGLang's Prometheus gauges for
// requests waiting in its queue and running, and the share of its KV cache in use. The fleet weighs replicas with
// them beside the requests it has outstanding there itself (other gateways may share the same replicas).

export interface RemoteLoad {
  /** Requests queued inside the engine. */
  waiting: number;
  running: number;
  /** KV-cache use, 0..1. */
  kvUsage: number;
  /** When read (the fleet's clock). */
  at: number;
}

// vLLM names (both spellings of its KV-cache gauge across versions) and SGLang's.
const WAITING = new Set(['vllm:num_requests_waiting', 'sglang:num_queue_reqs']);
const RUNNING = new Set(['vllm:num_requests_running', 'sglang:num_running_reqs']);
const KV = new Set(['vllm:gpu_cache_usage_perc', 'vllm:kv_cache_usage_perc', 'sglang:token_usage']);

/**
 * The load in a Prometheus text exposition, summed over label sets (one per served model); undefined when it holds
 * none of these gauges (not a vLLM or SGLang server).
 */
export function parseRemoteLoad(text: string, at: number): RemoteLoad | undefined {
  let found = false;
  let waiting = 0;
  let running = 0;
  let kvUsage = 0;
  for (const line of text.split('\n')) {
    if (!line || line.charCodeAt(0) === 35 /* # */) continue;
    const nameEnd = line.search(/[{ ]/);
    if (nameEnd <= 0) continue;
    const name = line.slice(0, nameEnd);
    const inWaiting = WAITING.has(name);
    const inRunning = RUNNING.has(name);
    const inKv = KV.has(name);
    if (!inWaiting && !inRunning && !inKv) continue;
    // The value follows the labels (which may hold spaces inside quotes), then an optional timestamp.
    const rest = line.slice(line[nameEnd] === '{' ? line.lastIndexOf('}') + 1 : nameEnd).trim();
    const value = Number(rest.split(/\s+/)[0]);
    if (!Number.isFinite(value)) continue;
    found = true;
    if (inWaiting) waiting += value;
    else if (inRunning) running += value;
    else kvUsage = Math.max(kvUsage, value);
  }
  return found ? { waiting, running, kvUsage: Math.min(1, Math.max(0, kvUsage)), at } : undefined;
}

/** Where a replica serves its metrics: the origin's /metrics (its baseUrl usually ends in /v1). */
export function metricsUrl(baseUrl: string): string {
  const u = new URL(baseUrl);
  return `${u.origin}/metrics`;
}
