// The workers of one instance: claim a job (lib/jobs/store.ts), run it under a renewed lease, record the outcome and
// bill it. Up to `workers` jobs run at once; idle workers look for queued jobs every `pollMs`, and a job queued on this
// instance wakes them at once. An attempt ends one of four ways:
//  - success: the file moves into media storage and the job becomes `succeeded` (only if the lease is still ours),
//    then its hold is settled;
//  - failure (the runner threw, or its time ran out): `failed`, and the hold is released;
//  - lost lease (cancelled by complete, or taken over after a stall): the attempt is dropped, its owner now decides;
//  - graceful stop: the job goes back to the queue for another instance, or this one after its restart.
import { randomBytes } from 'node:crypto';
import { costOfUse, quantityOf, unitPrices } from '../billing/pricing.ts';
import type { Catalogue } from '../models/catalogue.ts';
import type { JobBilling } from './billing.ts';
import type { MediaStore } from './media.ts';
import type { JobRow, JobStore } from './store.ts';
import { type FailureCode, JobFailure, type JobKind, LEASE_LOST, STOPPING } from './types.ts';
import { log } from '../log.ts';

/** A job interrupted this many times (its instance died each time) fails refunded rather than run again. */
export const MAX_ATTEMPTS = 3;

export interface WorkerOptions {
  workers: number;
  leaseMs: number;
  pollMs: number;
}

export class JobWorkers {
  /** This instance's name on the leases it holds. */
  readonly owner = randomBytes(6).toString('hex');
  private readonly jobs: JobStore;
  private readonly billing: JobBilling;
  private readonly media: MediaStore;
  private readonly catalogue: Catalogue;
  private readonly kinds: Map<string, JobKind>;
  private readonly opts: WorkerOptions;
  private readonly running = new Map<string, { controller: AbortController; done: Promise<void> }>();
  private wakeUp: (() => void) | undefined;
  private woken = false;
  private loop: Promise<void> | undefined;
  private stopped = false;

  constructor(deps: { jobs: JobStore; billing: JobBilling; media: MediaStore; catalogue: Catalogue; kinds: Map<string, JobKind> }, opts: WorkerOptions) {
    this.jobs = deps.jobs;
    this.billing = deps.billing;
    this.media = deps.media;
    this.catalogue = deps.catalogue;
    this.kinds = deps.kinds;
    this.opts = opts;
  }

  start(): void {
    this.loop ??= this.claimLoop();
  }

  /** A job was queued here, or a slot freed: look now rather than at the next poll. */
  wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  /** Every worker is running a job. */
  full(): boolean {
    return this.running.size >= this.opts.workers;
  }

  /** Stops a job running here (it was cancelled); its new state is already in the store. */
  cancel(jobId: string, kind: string): void {
    this.running.get(jobId)?.controller.abort(new JobFailure('cancelled', `The ${kind} job was cancelled`));
  }

  /** Stops claiming, hands the jobs running here back to the queue, and waits for them to let go. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.wake();
    await this.loop;
    for (const { controller } of this.running.values()) controller.abort(STOPPING);
    await Promise.allSettled([...this.running.values()].map((r) => r.done));
  }

  private async claimLoop(): Promise<void> {
    const kinds = [...this.kinds.keys()];
    while (!this.stopped) {
      this.woken = false;
      let claimed = false;
      if (this.running.size < this.opts.workers) {
        const row = await this.jobs.claim(kinds, this.owner, this.opts.leaseMs).catch((e) => {
          log.error({ err: e }, 'jobs: claiming a job failed (retried)');
          return undefined;
        });
        if (row && !this.stopped) {
          claimed = true;
          const controller = new AbortController();
          // A failure here is the store's or the ledger's (the runner's own are handled inside): the job's state says
          // what is left to do, and the sweep's reconcile finishes a billing step.
          const done = this.attempt(row, controller)
            .catch((e) => log.error({ err: e }, `jobs: job ${row.id} could not be recorded (the sweep retries its billing)`))
            .finally(() => {
              this.running.delete(row.id);
              this.wake();
            });
          this.running.set(row.id, { controller, done });
        } else if (row) await this.jobs.requeue(row.id, this.owner).catch(() => {});
      }
      // A wake-up that came while claiming is not lost: it means look again now.
      if (!claimed && !this.stopped && !this.woken) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, this.opts.pollMs);
          this.wakeUp = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        this.wakeUp = undefined;
      }
    }
  }

  private async attempt(row: JobRow, controller: AbortController): Promise<void> {
    const kind = this.kinds.get(row.kind);
    const model = this.catalogue.byId.get(row.model_id);
    if (!kind || !model || !kind.modelTypes.includes(model.type)) {
      return this.failed(row, 'failed', `Model ${row.model_id} is no longer served by this server`);
    }
    if (row.attempts > MAX_ATTEMPTS) {
      return this.failed(row, 'interrupted', `The job was interrupted ${MAX_ATTEMPTS} times (its server stopped) and was abandoned`);
    }
    const signal = controller.signal;
    const limitMs = kind.timeoutMs(model);
    const timer = setTimeout(
      () => controller.abort(new JobFailure('timeout', `The ${kind.name} job did not finish within ${Math.round(limitMs / 1000)} s`)),
      limitMs,
    );
    const renewer = setInterval(
      () => {
        this.jobs
          .renew(row.id, this.owner, this.opts.leaseMs)
          .then(async (ours) => {
            if (ours || signal.aborted) return;
            // Not ours any more: cancelled (complete, on any instance) ends the work for good; a takeover hands it on.
            const now = await this.jobs.get(row.id);
            controller.abort(now?.status === 'running' ? LEASE_LOST : new JobFailure('cancelled', `The ${kind.name} job was cancelled`));
          })
          .catch((e) => log.error({ err: e }, `jobs: renewing the lease of ${row.id} failed (retried)`));
      },
      Math.max(50, Math.floor(this.opts.leaseMs / 3)),
    );
    let workDir: string | undefined;
    try {
      workDir = await this.media.workDir(row.id, this.owner);
      const dir = workDir;
      let output;
      try {
        output = await kind.run(
          { id: row.id, model, request: JSON.parse(row.request), attempt: row.attempts, state: row.state === null ? undefined : JSON.parse(row.state) },
          { signal, workDir: dir, checkpoint: async (state) => void (await this.jobs.checkpoint(row.id, this.owner, state)) },
        );
      } catch (e) {
        const reason = signal.aborted ? signal.reason : e;
        if (reason === LEASE_LOST) return;
        if (reason === STOPPING) {
          await this.jobs.requeue(row.id, this.owner);
          return;
        }
        const failure = reason instanceof JobFailure ? reason : undefined;
        if (!failure) log.error({ err: e }, `jobs: ${kind.name} job ${row.id} (${model.id}) failed`);
        return await this.failed(row, failure?.code ?? 'failed', failure?.message ?? `The ${kind.name} could not be generated`);
      }
      if (signal.aborted && signal.reason === LEASE_LOST) return;
      clearInterval(renewer);
      await this.succeeded(row, kind, output);
    } finally {
      clearTimeout(timer);
      clearInterval(renewer);
      if (workDir) await this.media.removeDir(workDir).catch(() => {});
    }
  }

  private async succeeded(row: JobRow, kind: JobKind, output: Awaited<ReturnType<JobKind['run']>>): Promise<void> {
    const model = this.catalogue.byId.get(row.model_id)!;
    // Never more than the quote: the hold is the most a client agreed to pay.
    const cost = costOfUse(unitPrices(model), output.quantities);
    const capped = { usd: Math.min(cost.usd, row.quote_usd), diem: Math.min(cost.diem, row.quote_diem) };
    const stored = await this.media.keep(kind.name, row.id, output.file, output.contentType);
    if (
      !(await this.jobs.succeed(
        row.id,
        this.owner,
        { path: stored.path, type: output.contentType, bytes: stored.bytes },
        capped,
        quantityOf(kind.unit, output.quantities),
      ))
    ) {
      // The lease went meanwhile (cancelled, or taken over): the file stays only if it is the job's recorded result.
      const now = await this.jobs.get(row.id);
      if (now?.status !== 'succeeded' || now.media_path !== stored.path || now.deleted_at !== null) await this.media.remove(stored.path);
      return;
    }
    await this.media.removeInputs(row.id).catch(() => {});
    await this.billing.settle(row.id, { endpoint: kind.endpoint, unit: kind.unit });
  }

  private async failed(row: JobRow, code: FailureCode, message: string): Promise<void> {
    if (await this.jobs.fail(row.id, this.owner, { code, message })) {
      await this.media.removeInputs(row.id).catch(() => {});
      await this.billing.release(row.id);
    }
  }
}
