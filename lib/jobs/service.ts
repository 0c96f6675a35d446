// The four operations of every job kind, framework-free (the HTTP handlers are lib/jobs/api-routes.ts):
//  - quote: the price of a request, from the same code that holds and bills it (free; nothing is held);
//  - queue: validate → rate limit (the model's queue budget) → the account's cap on jobs at once → fetch references →
//    hold the quote → store the job; answers `{ model, queue_id }` at once;
//  - retrieve: the job's progress as JSON while it runs, then its media (the caller streams the file), or the failure
//    with `credits_refunded` (rate limited by the kind's retrieve budget);
//  - complete: deletes the media; a job still queued or running is cancelled and its hold released.
// A job is its account's: another account's queue_id is as unknown as a made-up one (404).
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { ApiError } from '../api/errors.ts';
import { parseOrThrow } from '../api/validation.ts';
import type { WireNames } from '../api/wire.ts';
import { keyLimitOf, type Principal } from '../auth/keys.ts';
import type { Balances } from '../billing/ledger.ts';
import type { Ledger } from '../billing/ledger-service.ts';
import { quote, unitPrices } from '../billing/pricing.ts';
import type { JobsConfig } from '../config.ts';
import type { Store } from '../db/store.ts';
import { admit, refuseUnaffordable } from '../billing/metered.ts';
import type { Redis } from 'ioredis';
import { RateLimiter } from '../limits/rate-limiter.ts';
import type { LimitConfig } from '../limits/config.ts';
import { type Catalogue, resolveModel } from '../models/catalogue.ts';
import type { ModelEntry } from '../models/schema.ts';
import { JobBilling } from './billing.ts';
import { MediaStore } from './media.ts';
import { type JobRow, JobStore, type StoredFailure } from './store.ts';
import type { JobKind } from './types.ts';
import { JobWorkers } from './workers.ts';
import { openWakeChannel, type WakeChannel } from '../db/wake-channel.ts';
import { log } from '../log.ts';

export interface JobCaller {
  principal: Principal;
  requestId: string;
  /** Receives the x-ratelimit-* headers. */
  responseHeaders: Record<string, string>;
  signal: AbortSignal;
}

export interface JobServiceDeps {
  store: Store;
  ledger: Ledger;
  /** The instance's limiter: queue requests are admitted per model like any inference. */
  limiter: RateLimiter;
  limits: LimitConfig;
  redis: Redis | undefined;
  redisPrefix: string;
  /** PostgreSQL's URL where there is no Redis: queued jobs wake the other instances by NOTIFY. */
  databaseUrl?: string;
  catalogue: Catalogue;
  config: JobsConfig;
  wire: WireNames;
  fetchAllowHosts: string[];
  /** The embedded store: holds live in memory and this process owns the data dir. */
  soleWriter: boolean;
  /**
   * A model's 503 while its engine is down (EngineHealth.refusal): a queue request is refused before anything is
   * held. A job queued earlier is not refused here: its attempt fails, refunded, if its engine cannot be reached.
   */
  refusal?: (modelId: string) => Error | undefined;
}

export type Retrieved =
  | { model: ModelEntry; status: 'processing'; body: { status: 'PROCESSING'; average_execution_time: number; execution_duration: number } }
  | {
      model: ModelEntry;
      status: 'done';
      file: string;
      contentType: string;
      bytes: number;
      /** Call once the whole file was sent (deletes it when the client asked for that). */
      sent(): Promise<void>;
      /** Call when the file cannot be read (removed by hand): the job is then gone for the client too. */
      gone(): Promise<void>;
    };

/** A job as the browser app lists it. */
export interface JobSummary {
  queue_id: string;
  model: string;
  status: 'queued' | 'running' | 'succeeded' | 'failed';
  created_at: number;
  finished_at: number | null;
  execution_duration: number;
  average_execution_time: number;
  media_type: string | null;
  media_bytes: number | null;
  error: { code: string; message: string; credits_refunded: true } | null;
  request: Record<string, unknown>;
}

const modelField = z.string().min(1).max(200);
const jobRef = z.strictObject({ model: modelField, queue_id: z.string().min(1).max(100) });
// The model may be left out (the job knows it: the public API's own wallet client polls with queue_id alone), and
// delete_after_retrieval is that client's name for delete_media_on_completion.
const retrieveBody = jobRef.extend({
  model: modelField.optional(),
  delete_media_on_completion: z.boolean().optional(),
  delete_after_retrieval: z.boolean().optional(),
});
const anyModel = z.looseObject({ model: modelField });

/** The percentile a client is shown as the expected run time (the reference's P80). */
const PERCENTILE = 0.8;
const AVERAGE_CACHE_MS = 5_000;
const STALE_FILES_EVERY_MS = 3_600_000;

export class JobService {
  private readonly deps: JobServiceDeps;
  private readonly kinds = new Map<string, JobKind>();
  private readonly retrieveLimiters = new Map<string, RateLimiter>();
  private readonly averages = new Map<string, { at: number; ms: number | undefined }>();
  readonly jobs: JobStore;
  readonly media: MediaStore;
  readonly billing: JobBilling;
  private workers: JobWorkers | undefined;
  private sweeper: NodeJS.Timeout | undefined;
  private wakeChannel: WakeChannel | undefined;
  private sweeping: Promise<unknown> | undefined;
  private lastFileSweep = 0;

  constructor(deps: JobServiceDeps) {
    this.deps = deps;
    this.jobs = new JobStore(deps.store);
    this.media = new MediaStore(deps.config.mediaDir);
    this.billing = new JobBilling(deps.store, this.jobs, deps.ledger);
  }

  /** Adds a kind (before start). */
  register(kind: JobKind<any>): void {
    if (this.workers) throw new Error('job kinds are registered before the job service starts');
    this.kinds.set(kind.name, kind as JobKind);
    this.retrieveLimiters.set(
      kind.name,
      new RateLimiter(kind.retrieveLimits(this.deps.limits), { redis: this.deps.redis, keyPrefix: `${this.deps.redisPrefix}:rl:${kind.name}-retrieve` }),
    );
  }

  /**
   * Before the server answers: on SQLite the previous process is gone, so its running jobs are queued again and the
   * holds of open jobs taken again; then the billing steps a crash interrupted are finished, and the workers start.
   */
  async start(): Promise<void> {
    await this.media.init(this.deps.soleWriter);
    const kinds = [...this.kinds.keys()];
    if (this.deps.soleWriter) {
      const requeued = await this.jobs.requeueAllRunning();
      if (requeued) log.info(`jobs: ${requeued} job(s) interrupted by the last stop are queued again`);
      await this.billing.rehold(kinds, (job) => this.billingInfo(job));
    }
    await this.billing.reconcile(kinds, (job) => this.billingInfo(job));
    this.workers = new JobWorkers(
      { jobs: this.jobs, billing: this.billing, media: this.media, catalogue: this.deps.catalogue, kinds: this.kinds },
      { workers: this.deps.config.workers, leaseMs: this.deps.config.leaseMs, pollMs: this.deps.config.pollMs },
    );
    this.workers.start();
    // A job queued on another instance, or given back by one that stops, starts here at once, not at the next poll.
    const workers = this.workers;
    this.wakeChannel = await openWakeChannel({
      name: 'jobs',
      self: workers.owner,
      onWake: () => workers.wake(),
      redis: this.deps.redis,
      redisPrefix: this.deps.redisPrefix,
      databaseUrl: this.deps.databaseUrl,
      store: this.deps.store,
    });
    const every = Math.max(250, Math.min(60_000, Math.floor(this.deps.config.retentionMs / 4), this.deps.config.pollMs * 10));
    this.sweeper = setInterval(() => {
      this.sweeping ??= this.sweep()
        .catch((e) => log.error({ err: e }, 'jobs: the sweep failed (retried)'))
        .finally(() => (this.sweeping = undefined));
    }, every).unref();
  }

  /** Graceful stop: no new claims; running jobs go back to the queue; billing steps under way finish. */
  async stop(): Promise<void> {
    clearInterval(this.sweeper);
    await this.workers?.stop();
    // The jobs it ran are queued again: the others take them now.
    this.wakeChannel?.notify();
    await this.wakeChannel?.close();
    await this.sweeping;
    await this.billing.drain();
  }

  /**
   * One sweep: billing steps left by a crash, finished jobs past the retention period (media deleted), and, now and
   * then, files of attempts and requests that died with their process.
   */
  async sweep(): Promise<{ expired: number }> {
    const kinds = [...this.kinds.keys()];
    await this.billing.reconcile(kinds, (job) => this.billingInfo(job));
    let expired = 0;
    for (const { id } of await this.jobs.expired(this.deps.config.retentionMs)) {
      const { deleted, mediaPath } = await this.jobs.markDeleted(id);
      if (!deleted) continue;
      expired++;
      await this.media.remove(mediaPath);
      await this.media.removeInputs(id);
    }
    if (Date.now() - this.lastFileSweep > STALE_FILES_EVERY_MS) {
      this.lastFileSweep = Date.now();
      // Scratch folders live no longer than an attempt may run; inputs as long as their job is queued or running.
      const longest = Math.max(
        ...[...this.kinds.values()].flatMap((k) => this.deps.catalogue.models.filter((m) => k.modelTypes.includes(m.type)).map((m) => k.timeoutMs(m))),
        0,
      );
      await this.media.removeStale(longest + 3_600_000, async (id) => {
        const job = await this.jobs.get(id);
        return job?.status === 'queued' || job?.status === 'running';
      });
    }
    return { expired };
  }

  // ---- quote -------------------------------------------------------------------------------------------------

  /** The price in USD of what the body asks for. */
  quote(kindName: string, body: unknown): { quote: number } {
    const kind = this.kind(kindName);
    const model = this.model(kind, parseOrThrow(anyModel, objectBody(body), this.deps.wire).model);
    const amount = quote(unitPrices(model), kind.quote(body, model, this.deps.wire));
    return { quote: amount.usd / 1_000_000 };
  }

  // ---- queue -------------------------------------------------------------------------------------------------

  async queue(kindName: string, caller: JobCaller, body: unknown): Promise<{ model: ModelEntry; body: Record<string, unknown>; before: Balances }> {
    const kind = this.kind(kindName);
    const model = this.model(kind, parseOrThrow(anyModel, objectBody(body), this.deps.wire).model);
    const validated = kind.validate(body, model, this.deps.wire);
    const refused = this.deps.refusal?.(model.id);
    if (refused) throw refused;
    const p = caller.principal;
    const admission = await admit({ limiter: this.deps.limiter, store: this.deps.store }, caller, model, 0);
    Object.assign(caller.responseHeaders, admission.headers);
    // The cheap refusals before anything is fetched: the cap on jobs at once, full storage, no credit at all.
    const cap = this.deps.config.perAccount;
    if ((await this.jobs.activeCount(this.deps.store, p.accountId)) >= cap) throw tooManyJobs(kind, cap);
    if ((await this.jobs.storedBytes()) >= this.deps.config.mediaMaxBytes) {
      throw new ApiError('MEDIA_STORAGE_FULL', `Media storage is full: retrieve and complete finished ${kind.name} jobs, or try again later`);
    }
    const prices = unitPrices(model);
    await refuseUnaffordable(this.deps, caller, { model, prices, endpoint: kind.endpoint, unit: kind.unit, estimate: validated.estimate });
    const id = randomUUID();
    let held: { usd: number; diem: number } | undefined;
    try {
      const fetchReference = this.media.fetcher(id, { allowHosts: this.deps.fetchAllowHosts, signal: caller.signal });
      const prepared = await kind.prepare(validated, model, { wire: this.deps.wire, fetchReference, signal: caller.signal });
      const estimate = quote(prices, prepared.estimate);
      const { hold, before } = await this.deps.ledger.reserve({
        requestId: id,
        accountId: p.accountId,
        keyId: p.keyId,
        keyLimit: keyLimitOf(p.key),
        memberId: p.key.memberId,
        estimate,
      });
      held = hold;
      const job = { id, kind: kind.name, modelId: model.id, accountId: p.accountId, keyId: p.keyId, request: prepared.request, quote: estimate, hold };
      if (!(await this.jobs.insert(job, cap))) throw tooManyJobs(kind, cap);
      held = undefined;
      this.workers?.wake();
      // Every worker here busy: another instance's may be free (a free one here takes it, and the others stay asleep).
      if (this.workers?.full()) this.wakeChannel?.notify();
      return { model, body: { model: model.id, queue_id: id, ...kind.queuedFields }, before };
    } catch (e) {
      if (held) void this.deps.ledger.release({ requestId: id, accountId: p.accountId, keyId: p.keyId, ...held });
      await this.media.removeInputs(id).catch(() => {});
      throw e;
    }
  }

  // ---- retrieve ----------------------------------------------------------------------------------------------

  async retrieve(kindName: string, caller: JobCaller, body: unknown): Promise<Retrieved> {
    const kind = this.kind(kindName);
    const req = parseOrThrow(retrieveBody, objectBody(body), this.deps.wire);
    const deleteAfter = req.delete_media_on_completion ?? req.delete_after_retrieval ?? false;
    let model: ModelEntry;
    let job: Awaited<ReturnType<JobService['owned']>>;
    if (req.model !== undefined) {
      model = this.model(kind, req.model);
      await this.admitRetrieve(kind, caller, model);
      job = await this.owned(kind, caller, model, req.queue_id);
    } else {
      job = await this.owned(kind, caller, undefined, req.queue_id);
      model = this.model(kind, job.model_id);
      await this.admitRetrieve(kind, caller, model);
    }
    if (job.status === 'queued' || job.status === 'running') {
      const running = job.status === 'running' && job.started_at !== null;
      return {
        model,
        status: 'processing',
        body: {
          status: 'PROCESSING',
          average_execution_time: await this.averageMs(kind, model, job),
          execution_duration: running ? Math.max(0, job.now - job.started_at!) : 0,
        },
      };
    }
    if (job.status === 'failed') throw failureError(kind, job);
    const file = this.media.resolve(job.media_path!);
    const sent = async () => {
      if (!deleteAfter) return;
      const { mediaPath } = await this.jobs.markDeleted(job.id);
      await this.media.remove(mediaPath);
    };
    const gone = async () => void (await this.jobs.markDeleted(job.id));
    return { model, status: 'done', file, contentType: job.media_type ?? 'application/octet-stream', bytes: job.media_bytes ?? 0, sent, gone };
  }

  // ---- complete ----------------------------------------------------------------------------------------------

  async complete(kindName: string, caller: JobCaller, body: unknown): Promise<{ model: ModelEntry; body: { success: boolean } }> {
    const kind = this.kind(kindName);
    const req = parseOrThrow(jobRef, objectBody(body), this.deps.wire);
    const model = this.model(kind, req.model);
    await this.admitRetrieve(kind, caller, model);
    const job = await this.owned(kind, caller, model, req.queue_id, true);
    if (job.status === 'queued' || job.status === 'running') {
      const failure: StoredFailure = { code: 'cancelled', message: `The ${kind.name} job was cancelled` };
      if (await this.jobs.fail(job.id, null, failure)) {
        this.workers?.cancel(job.id, kind.name);
        await this.billing.release(job.id);
      }
    }
    const { mediaPath } = await this.jobs.markDeleted(job.id);
    await this.media.remove(mediaPath);
    await this.media.removeInputs(job.id);
    return { model, body: { success: true } };
  }

  // ---- list (for the browser app's pages) ---------------------------------------------------------------------

  /**
   * The account's jobs of a kind that still exist, newest first: what a page lists after a reload. `request` is what
   * the job was asked (the kind's stored request, less fetched files' paths).
   */
  async list(kindName: string, accountId: string, limit = 50): Promise<JobSummary[]> {
    const kind = this.kind(kindName);
    const rows = await this.jobs.listByAccount(accountId, kind.name, Math.max(1, Math.min(200, limit)));
    const out: JobSummary[] = [];
    for (const job of rows) {
      const model = this.deps.catalogue.byId.get(job.model_id);
      const { inputs: _inputs, ...request } = JSON.parse(job.request) as Record<string, unknown>;
      const failure = job.status === 'failed' ? (JSON.parse(job.error ?? '{}') as StoredFailure) : undefined;
      out.push({
        queue_id: job.id,
        model: job.model_id,
        status: job.status,
        created_at: job.created_at,
        finished_at: job.finished_at,
        execution_duration: job.status === 'running' && job.started_at !== null ? Math.max(0, job.now - job.started_at) : 0,
        average_execution_time: model ? await this.averageMs(kind, model, job) : 0,
        media_type: job.media_type,
        media_bytes: job.media_bytes,
        error: failure ? { code: failure.code, message: failure.message, credits_refunded: true } : null,
        request,
      });
    }
    return out;
  }

  // ---- helpers -----------------------------------------------------------------------------------------------

  private kind(name: string): JobKind {
    const kind = this.kinds.get(name);
    if (!kind) throw new ApiError('NOT_FOUND', `This server runs no ${name} jobs`);
    return kind;
  }

  /** The model the body names, which must be one of the kind's types (another type is a 400, an unknown name a 404). */
  private model(kind: JobKind, name: string): ModelEntry {
    const model = resolveModel(this.deps.catalogue, name, kind.modelTypes[0]);
    if (!kind.modelTypes.includes(model.type)) {
      throw new ApiError('INVALID_MODEL', `Model ${model.id} is a ${model.type} model, not a ${kind.name} model`, { param: 'model' });
    }
    return model;
  }

  private async admitRetrieve(kind: JobKind, caller: JobCaller, model: ModelEntry): Promise<void> {
    const limiter = this.retrieveLimiters.get(kind.name)!;
    const admission = await admit({ limiter, store: this.deps.store }, caller, model, 0);
    Object.assign(caller.responseHeaders, admission.headers);
  }

  /** The caller's job of this kind and model; 404 when it is unknown, another account's, deleted or expired. */
  /** The caller's job of this kind (of this model, when one is given); 404 otherwise. */
  private async owned(kind: JobKind, caller: JobCaller, model: ModelEntry | undefined, id: string, deletedToo = false) {
    const job = await this.jobs.get(id);
    const found = job && job.kind === kind.name && job.account_id === caller.principal.accountId && (!model || job.model_id === model.id);
    if (!found || (job.deleted_at !== null && !deletedToo)) {
      const forModel = model ? ` for model ${model.id}` : '';
      throw new ApiError('NOT_FOUND', `No ${kind.name} job ${JSON.stringify(id.slice(0, 100))}${forModel}: unknown, expired or deleted`, {
        param: 'queue_id',
      });
    }
    return job;
  }

  /** The P80 run time of the model's recent jobs (cached for a few seconds); before any, the kind's estimate. */
  private async averageMs(kind: JobKind, model: ModelEntry, job: JobRow): Promise<number> {
    let cached = this.averages.get(model.id);
    if (!cached || Date.now() - cached.at > AVERAGE_CACHE_MS) {
      const runs = (await this.jobs.recentDurations(model.id)).sort((a, b) => a - b);
      cached = { at: Date.now(), ms: runs.length ? runs[Math.min(runs.length - 1, Math.floor(runs.length * PERCENTILE))] : undefined };
      this.averages.set(model.id, cached);
    }
    return Math.round(cached.ms ?? kind.expectedMs(model, JSON.parse(job.request)));
  }

  private billingInfo(job: JobRow) {
    const kind = this.kinds.get(job.kind)!;
    return { endpoint: kind.endpoint, unit: kind.unit };
  }
}

function objectBody(body: unknown): Record<string, unknown> {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw new ApiError('INVALID_REQUEST', 'The request body must be a JSON object');
  return body as Record<string, unknown>;
}

const tooManyJobs = (kind: JobKind, cap: number) =>
  new ApiError(
    'TOO_MANY_JOBS',
    `You have ${cap} jobs queued or running, the most allowed at once: wait until one finishes (or complete it) before queueing another ${kind.name}`,
  );

/** A failed job's answer: the reference's 422 for a content-policy refusal, else a 500; credits are always refunded. */
function failureError(kind: JobKind, job: JobRow): ApiError {
  let failure: StoredFailure = { code: 'failed', message: `The ${kind.name} job failed` };
  try {
    failure = JSON.parse(job.error ?? '') as StoredFailure;
  } catch {}
  const extra = { credits_refunded: true, failure: failure.code };
  if (failure.code === 'content_policy') return new ApiError('CONTENT_POLICY_VIOLATION', failure.message, { ...extra, type: 'provider_content_policy' });
  if (failure.code === 'cancelled') return new ApiError('NOT_FOUND', failure.message, extra);
  return new ApiError('INFERENCE_FAILED', failure.message, extra);
}
