// Engine health: every engine of the catalogue is checked at start and then every LAGOON_ENGINE_CHECK_MS (a broken
// one more often, so a restarted upstream is back within seconds), without a server restart either way. A broken
// engine is logged once per change of state with its reason, reported as offline in /models and the app's model
// list, on /readyz, and its requests are refused at once with 503 ENGINE_DOWN naming the problem (never a secret).
import { ApiError } from '../api/errors.ts';
import { log as serverLog } from '../log.ts';
import type { CatalogueVars } from '../models/catalogue.ts';
import type { EngineSpec, ModelEntry } from '../models/schema.ts';
import { DEFAULT_PROBE_TIMEOUT_MS, type ProbeResult, probeEngine } from './health-probe.ts';

export { type ProbeResult, probeEngine, safeUrl } from './health-probe.ts';

export interface EngineStatus {
  ok: boolean;
  /** Why the engine is down (for clients: names the problem, never a URL, path or key). */
  reason?: string;
  /** Something worth knowing about a working engine (a replica down, a model the upstream does not list). */
  note?: string;
  /** When it was last checked (ms since the epoch); 0 before the first check. */
  checkedAt: number;
}

export interface EngineHealthOptions {
  vars: CatalogueVars;
  /** How often every engine is checked; 0 turns checking off (every engine counts as available). */
  intervalMs: number;
  timeoutMs?: number;
  /** Where state changes are written (the server log, lib/log.ts, by default). */
  log?: { warn(fields: Record<string, unknown>, message: string): void; info(fields: Record<string, unknown>, message: string): void };
  /** The check itself (tests may count calls); probeEngine by default. */
  probe?: typeof probeEngine;
}

/** How often a broken engine is checked again, at most: recovery should not wait a whole interval. */
const DOWN_RECHECK_MS = 5_000;
/** A request that failed to reach its engine asks for a check, at most this often per engine. */
const SUSPECT_DEBOUNCE_MS = 1_000;

/**
 * Models on the same engine share one check: the same spec, or for OpenAI-compatible upstreams the same URLs and key
 * (a discovered upstream's hundred models cost one `GET /models` a round, not a hundred).
 */
interface Group {
  key: string;
  spec: EngineSpec;
  label: string;
  models: ModelEntry[];
  /** For an OpenAI-compatible upstream: the served names its /models should list. */
  served: string[];
  status: EngineStatus;
  nextAt: number;
  running: Promise<void> | undefined;
  lastSuspect: number;
}

function groupKey(m: ModelEntry): string {
  const e = m.engine;
  return e.kind === 'openai' ? JSON.stringify({ kind: e.kind, baseUrl: e.baseUrl, apiKeyEnv: e.apiKeyEnv }) : JSON.stringify(e);
}

/** The names an OpenAI-compatible upstream should list for these models. */
const servedNames = (models: readonly ModelEntry[]) => [...new Set(models.map((m) => (m.engine.kind === 'openai' ? (m.engine.model ?? m.id) : m.id)))];

const fingerprintOf = (models: readonly ModelEntry[]) => models.map((m) => `${m.id}\u0000${JSON.stringify(m.engine)}`).join('\u0001');

export class EngineHealth {
  private groups: Group[] = [];
  private byModel = new Map<string, Group>();
  private timer: NodeJS.Timeout | undefined;
  private readonly log: NonNullable<EngineHealthOptions['log']>;
  private readonly probe: typeof probeEngine;

  private readonly opts: EngineHealthOptions;
  /** The catalogue's model list, read again on every tick: a catalogue changed at run time is followed. */
  private readonly models: () => readonly ModelEntry[];
  private fingerprint = '';
  private started = false;

  constructor(models: readonly ModelEntry[] | (() => readonly ModelEntry[]), opts: EngineHealthOptions) {
    this.opts = opts;
    this.models = typeof models === 'function' ? models : () => models;
    this.log = opts.log ?? serverLog;
    this.probe = opts.probe ?? probeEngine;
    void this.setModels(this.models());
  }

  /**
   * Follows a catalogue changed at run time: engines still in it keep their status, new ones are checked now (the
   * returned promise waits for those checks).
   */
  setModels(models: readonly ModelEntry[]): Promise<void> {
    this.fingerprint = fingerprintOf(models);
    const old = new Map(this.groups.map((g) => [g.key, g]));
    const byKey = new Map<string, Group>();
    const byModel = new Map<string, Group>();
    for (const m of models) {
      const key = groupKey(m);
      let g = byKey.get(key);
      if (!g) {
        // A kept group is the same object, so a check in flight lands where it is read.
        g = old.get(key) ?? {
          key,
          spec: m.engine,
          label: '',
          models: [],
          served: [],
          status: { ok: true, checkedAt: 0 },
          nextAt: 0,
          running: undefined,
          lastSuspect: 0,
        };
        g.models = [];
        byKey.set(key, g);
      }
      g.models.push(m);
      byModel.set(m.id, g);
    }
    this.groups = [...byKey.values()];
    this.byModel = byModel;
    for (const g of this.groups) {
      g.label = `${g.spec.kind} engine of ${g.models.map((m) => m.id).join(', ')}`;
      g.served = g.spec.kind === 'openai' ? servedNames(g.models) : [];
    }
    if (!this.enabled || !this.started) return Promise.resolve();
    return Promise.all(this.groups.filter((g) => g.status.checkedAt === 0).map((g) => this.check(g))).then(() => undefined);
  }

  get enabled(): boolean {
    return this.opts.intervalMs > 0;
  }

  /** Checks every engine once (awaited, so the server starts knowing), then keeps checking in the background. */
  async start(): Promise<void> {
    if (!this.enabled) return;
    this.started = true;
    await this.checkAll();
    const tick = Math.min(this.opts.intervalMs, DOWN_RECHECK_MS);
    this.timer = setInterval(() => this.checkDue(), tick);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Checks every engine now. */
  async checkAll(): Promise<void> {
    await Promise.all(this.groups.map((g) => this.check(g)));
  }

  /** The status of a model's engine; undefined for a model the catalogue does not have. */
  status(modelId: string): EngineStatus | undefined {
    return this.byModel.get(modelId)?.status;
  }

  /** Every model's engine status, by model id. */
  snapshot(): Record<string, EngineStatus> {
    return Object.fromEntries([...this.byModel].map(([id, g]) => [id, g.status]));
  }

  /** The 503 a request for this model gets while its engine is down; undefined while it is available (one lookup). */
  refusal(modelId: string): ApiError | undefined {
    const g = this.byModel.get(modelId);
    if (!g || g.status.ok) return undefined;
    // The recheck interval of a broken engine: when asking again can first find it back.
    const retry = Math.max(1, Math.ceil(Math.min(this.opts.intervalMs, DOWN_RECHECK_MS) / 1000));
    return new ApiError('ENGINE_DOWN', `Model ${modelId} is unavailable: ${g.status.reason}. The server checks it again shortly.`, undefined, {
      'retry-after': String(retry),
    });
  }

  /** A request could not reach this model's engine: check it soon rather than at the next interval. */
  suspect(modelId: string): void {
    const g = this.byModel.get(modelId);
    if (!g || !this.enabled) return;
    const now = Date.now();
    if (now - g.lastSuspect < SUSPECT_DEBOUNCE_MS) return;
    g.lastSuspect = now;
    void this.check(g);
  }

  private checkDue(): void {
    const models = this.models();
    if (fingerprintOf(models) !== this.fingerprint) void this.setModels(models);
    const now = Date.now();
    for (const g of this.groups) if (g.nextAt <= now) void this.check(g);
  }

  private check(g: Group): Promise<void> {
    g.running ??= this.run(g).finally(() => {
      g.running = undefined;
    });
    return g.running;
  }

  private async run(g: Group): Promise<void> {
    let result: ProbeResult;
    try {
      result = await this.probe(g.spec, { vars: this.opts.vars, timeoutMs: this.opts.timeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS, served: g.served });
    } catch (e) {
      result = { ok: false, reason: `its check failed (${(e as Error).message})` };
    }
    const now = Date.now();
    const before = g.status;
    g.status = result.ok ? { ok: true, ...(result.note ? { note: result.note } : {}), checkedAt: now } : { ok: false, reason: result.reason, checkedAt: now };
    g.nextAt = now + (result.ok ? this.opts.intervalMs : Math.min(this.opts.intervalMs, DOWN_RECHECK_MS));
    const where = result.where ? ` (${result.where})` : '';
    const fields = { event: 'engine_health', engine: g.spec.kind, models: g.models.map((m) => m.id), where: result.where };
    // Logged once per change of state (and of note), never once per check.
    if (!result.ok && (before.ok || before.reason !== result.reason))
      this.log.warn({ ...fields, ok: false, reason: result.reason }, `engine down: the ${g.label}${where}: ${result.reason}`);
    else if (result.ok && !before.ok) this.log.info({ ...fields, ok: true }, `engine available again: the ${g.label}${where}`);
    if (result.ok && result.note && result.note !== before.note)
      this.log[result.routine ? 'info' : 'warn']({ ...fields, ok: true, note: result.note }, `engine note: the ${g.label}${where}: ${result.note}`);
  }
}
