// A fleet of replicas of one model (vLLM, SGLang, llama.cpp servers, any OpenAI-compatible upstream) and the choice of
// one for each request:
// - A request with a prefix key goes to the replica that key hashes to (rendezvous hashing, so a replica leaving
//   moves only its own keys), unless that replica holds more than `loadBound` times the mean load: then to the next
//   in the key's order ("consistent hashing with bounded loads", Mirrokni et al.), so a hot conversation never piles
//   onto one replica while others idle. Later turns of a chat reuse the KV cache that holds its prefix.
// - A request without one goes to the replica with the least load (requests outstanding there, plus its own queue
//   when its /metrics says so), ties taken in turn.
// - A replica that fails is ejected: at once when no connection could be made, after `failuresToEject` failures in a
//   row otherwise. It is probed (GET {baseUrl}/models) when its ejection ends, and back in rotation when the probe
//   answers; each failed probe doubles the ejection, up to `maxEjectMs`. While every replica is ejected, requests
//   still go to the one due back first: trying beats refusing.
import { log } from '../../../log.ts';
import { hash32 } from './prefix.ts';
import type { RemoteLoad } from './remote-load.ts';

export type ReplicaState = 'healthy' | 'ejected' | 'probing';
export type Policy = 'least-outstanding' | 'round-robin' | 'random';
/** How an attempt on a replica ended, for its health: `ok` (it answered), `failed`, `unreachable` (no connection). */
export type Outcome = 'ok' | 'failed' | 'unreachable' | 'neutral';

export interface FleetOptions {
  /** Catalogue model id, for the log and the metrics. */
  model: string;
  /** Spread: `least-outstanding` (default); `round-robin` and `random` exist for comparison in the bench. */
  policy?: Policy;
  /** Keep a prefix key on its replica (default true). */
  affinity?: boolean;
  /** A keyed request leaves its replica when that one's load would pass this times the mean (default 1.25). */
  loadBound?: number;
  /** Failures in a row that eject a replica that still accepts connections (default 3). */
  failuresToEject?: number;
  /** The first ejection (default 2 s); each failed probe doubles it up to maxEjectMs (default 30 s). */
  ejectMs?: number;
  maxEjectMs?: number;
  /** Asks a replica whether it is back; resolves true when it answers. */
  probe?: (baseUrl: string) => Promise<boolean>;
  /** Reads a replica's own load (its /metrics); undefined when it serves none. Polled every `loadEveryMs`. */
  readLoad?: (baseUrl: string) => Promise<RemoteLoad | undefined>;
  /** How often to read replicas' /metrics (default 5 s; 0: never). */
  loadEveryMs?: number;
  now?: () => number;
  random?: () => number;
}

export class Replica {
  readonly url: string;
  /** The replica's host:port, for logs and metric labels (never credentials or a path). */
  readonly label: string;
  outstanding = 0;
  /** Failures in a row. */
  failures = 0;
  /** 0 while in rotation; else when its ejection ends (the fleet's clock). */
  ejectedUntil = 0;
  ejectMs = 0;
  probing = false;
  remote: RemoteLoad | undefined;
  /** When its /metrics may be read next (a replica without them is asked again rarely). */
  loadDueAt = 0;
  readonly counts = { requests: 0, failures: 0, ejections: 0, retries: 0 };

  constructor(url: string) {
    this.url = url;
    let label = url;
    try {
      label = new URL(url).host;
    } catch {
      /* the raw text: parse errors surface on the first request */
    }
    this.label = label;
  }

  get state(): ReplicaState {
    return this.ejectedUntil === 0 ? 'healthy' : this.probing ? 'probing' : 'ejected';
  }
}

/** A remote load older than this is ignored (its server stopped answering /metrics). */
const REMOTE_FRESH_MS = 15_000;
/** A replica without vLLM/SGLang metrics is asked again this rarely. */
const NO_METRICS_RETRY_MS = 60_000;

export class Fleet {
  readonly replicas: Replica[];
  readonly model: string;
  private readonly o: Required<Omit<FleetOptions, 'probe' | 'readLoad' | 'model'>> & Pick<FleetOptions, 'probe' | 'readLoad'>;
  private turn = 0;
  private timer: NodeJS.Timeout | undefined;
  /** Keyed picks that landed on the key's own replica, and all keyed picks (the bench's prefix hit rate). */
  readonly affinity = { home: 0, keyed: 0 };

  constructor(urls: string[], opts: FleetOptions) {
    this.replicas = urls.map((u) => new Replica(u));
    this.model = opts.model;
    this.o = {
      policy: opts.policy ?? 'least-outstanding',
      affinity: opts.affinity ?? true,
      loadBound: Math.max(1, opts.loadBound ?? 1.25),
      failuresToEject: Math.max(1, opts.failuresToEject ?? 3),
      ejectMs: opts.ejectMs ?? 2_000,
      maxEjectMs: opts.maxEjectMs ?? 30_000,
      loadEveryMs: opts.loadEveryMs ?? 5_000,
      now: opts.now ?? Date.now,
      random: opts.random ?? Math.random,
      probe: opts.probe,
      readLoad: opts.readLoad,
    };
  }

  /** Probes and load reads on a timer (unref'd: it never keeps the process up); only a fleet of several needs it. */
  start(everyMs = 1_000): this {
    if (this.replicas.length > 1 && !this.timer) {
      this.timer = setInterval(() => void this.tick(), everyMs);
      this.timer.unref();
    }
    return this;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** A replica's load as the picker weighs it: outstanding here, plus the engine's own queue when fresh. */
  load(r: Replica): number {
    const remote = r.remote && this.o.now() - r.remote.at < REMOTE_FRESH_MS ? r.remote : undefined;
    if (!remote) return r.outstanding;
    // A replica whose KV cache is nearly full preempts or queues what it admits next: count it one request heavier.
    return r.outstanding + remote.waiting + (remote.kvUsage >= 0.9 ? 1 : 0);
  }

  /**
   * The replica for the next attempt, never one in `tried`; undefined when every replica was tried. `key` is the
   * request's prefix key (prefix.ts).
   */
  pick(key: string | undefined, tried: ReadonlySet<Replica> = new Set()): Replica | undefined {
    const open = this.replicas.filter((r) => !tried.has(r));
    if (open.length === 0) return undefined;
    if (open.length === 1) return open[0];
    let usable = open.filter((r) => r.ejectedUntil === 0);
    if (usable.length === 0) {
      // Every untried replica is ejected: the one due back first.
      return open.reduce((a, b) => (b.ejectedUntil < a.ejectedUntil ? b : a));
    }
    if (usable.length === 1) return usable[0];
    if (key !== undefined && this.o.affinity) return this.pickAffine(key, usable);
    if (this.o.policy === 'random') return usable[Math.floor(this.o.random() * usable.length)];
    const start = this.turn++ % usable.length;
    if (this.o.policy === 'round-robin') return usable[start];
    usable = [...usable.slice(start), ...usable.slice(0, start)];
    let best = usable[0];
    let bestLoad = this.load(best);
    for (const r of usable) {
      const l = this.load(r);
      if (l < bestLoad) [best, bestLoad] = [r, l];
    }
    return best;
  }

  private pickAffine(key: string, usable: Replica[]): Replica {
    // Rendezvous order of every replica (ejected ones too), so the key's home is the same whatever is ejected now.
    const ranked = this.replicas.map((r) => ({ r, score: hash32(`${key}\u0000${r.url}`) })).sort((a, b) => b.score - a.score);
    const home = ranked[0].r;
    const loads = new Map(usable.map((r) => [r, this.load(r)]));
    let total = 0;
    for (const l of loads.values()) total += l;
    // The bound counts the request being placed, so an idle fleet always admits it on its home replica.
    const bound = Math.ceil((this.o.loadBound * (total + 1)) / usable.length);
    this.affinity.keyed++;
    for (const { r } of ranked) {
      const l = loads.get(r);
      if (l === undefined || l + 1 > bound) continue;
      if (r === home) this.affinity.home++;
      return r;
    }
    // Unreachable (some replica is at or under the mean), kept for safety: the least loaded.
    return usable.reduce((a, b) => ((loads.get(b) ?? 0) < (loads.get(a) ?? 0) ? b : a));
  }

  /** An attempt starts on `r`. */
  begin(r: Replica): void {
    r.outstanding++;
    r.counts.requests++;
  }

  /** An attempt on `r` ended. */
  end(r: Replica, outcome: Outcome): void {
    r.outstanding = Math.max(0, r.outstanding - 1);
    if (outcome === 'neutral') return;
    if (outcome === 'ok') {
      r.failures = 0;
      if (r.ejectedUntil !== 0) this.readmit(r, 'it answered a request');
      return;
    }
    r.counts.failures++;
    r.failures++;
    if (r.ejectedUntil === 0 && (outcome === 'unreachable' || r.failures >= this.o.failuresToEject) && this.replicas.length > 1) {
      this.eject(r, outcome === 'unreachable' ? 'no connection could be made' : `${r.failures} failures in a row`);
    }
  }

  /** Another attempt of the same request follows on another replica. */
  retried(from: Replica): void {
    from.counts.retries++;
  }

  private eject(r: Replica, why: string): void {
    r.ejectMs = r.ejectMs ? Math.min(r.ejectMs * 2, this.o.maxEjectMs) : this.o.ejectMs;
    r.ejectedUntil = this.o.now() + r.ejectMs;
    r.counts.ejections++;
    log.warn(
      { event: 'replica_ejected', model: this.model, replica: r.label, forMs: r.ejectMs },
      `replica ${r.label} of ${this.model} ejected for ${r.ejectMs} ms: ${why}`,
    );
  }

  private readmit(r: Replica, why: string): void {
    r.ejectedUntil = 0;
    r.ejectMs = 0;
    r.failures = 0;
    log.info({ event: 'replica_readmitted', model: this.model, replica: r.label }, `replica ${r.label} of ${this.model} back in rotation: ${why}`);
  }

  /** Probes replicas whose ejection is over and reads replicas' load when due; the timer calls it every second. */
  async tick(): Promise<void> {
    const now = this.o.now();
    const work: Promise<void>[] = [];
    for (const r of this.replicas) {
      if (r.ejectedUntil !== 0 && !r.probing && r.ejectedUntil <= now && this.o.probe) work.push(this.probeOne(r));
      if (this.o.readLoad && this.o.loadEveryMs > 0 && r.ejectedUntil === 0 && r.loadDueAt <= now) work.push(this.readLoadOf(r, now));
    }
    await Promise.all(work);
  }

  private async probeOne(r: Replica): Promise<void> {
    r.probing = true;
    let ok = false;
    try {
      ok = await this.o.probe!(r.url);
    } catch {
      ok = false;
    } finally {
      r.probing = false;
    }
    // A request may have readmitted it meanwhile.
    if (r.ejectedUntil === 0) return;
    if (ok) this.readmit(r, 'its probe answered');
    else this.eject(r, 'its probe failed');
  }

  private async readLoadOf(r: Replica, now: number): Promise<void> {
    r.loadDueAt = now + this.o.loadEveryMs;
    try {
      const load = await this.o.readLoad!(r.url);
      r.remote = load;
      if (!load) r.loadDueAt = now + Math.max(this.o.loadEveryMs, NO_METRICS_RETRY_MS);
    } catch {
      r.remote = undefined;
    }
  }

  /** Every replica's state, for /metrics and /readyz. */
  snapshot(): ReplicaSnapshot[] {
    const now = this.o.now();
    return this.replicas.map((r) => ({
      replica: r.label,
      state: r.state,
      outstanding: r.outstanding,
      ...(r.ejectedUntil ? { backInMs: Math.max(0, r.ejectedUntil - now) } : {}),
      ...(r.remote && now - r.remote.at < REMOTE_FRESH_MS ? { queue: r.remote.waiting, kvUsage: r.remote.kvUsage } : {}),
      ...r.counts,
    }));
  }
}

export interface ReplicaSnapshot {
  replica: string;
  state: ReplicaState;
  outstanding: number;
  backInMs?: number;
  queue?: number;
  kvUsage?: number;
  requests: number;
  failures: number;
  ejections: number;
  retries: number;
}

/** The fleets of this process (several replicas each), by model id: what /metrics and /readyz report. */
const live = new Map<string, Fleet>();

export function registerFleet(f: Fleet): void {
  if (f.replicas.length > 1) live.set(f.model, f);
}

export function unregisterFleet(f: Fleet): void {
  if (live.get(f.model) === f) live.delete(f.model);
}

export function fleetSnapshots(): Record<string, ReplicaSnapshot[]> {
  return Object.fromEntries([...live].map(([model, f]) => [model, f.snapshot()]));
}
