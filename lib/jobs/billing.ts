// A job's money: the quote is held when it is queued, and the hold is settled once (success) or released once
// (failure, cancellation, expiry), across restarts and instances.
//
// The hold is an ordinary ledger hold whose request id is the job id, so the ledger's own guarantees apply: a
// settlement writes the usage row keyed by that id (a second settlement, from a retry or another instance, bills
// nothing), and a release takes the hold at most once. What jobs add is ownership that outlives the request:
//  - PostgreSQL (holds are rows): the instance sweep leaves alone the hold of a job whose billing is still open
//    (lib/billing/instance-lease.ts), whoever queued it and whether or not that instance lives; the job machinery
//    settles or releases it.
//  - SQLite (holds live in the one server's memory, cleared at start): at start, the holds of jobs still open are
//    taken again (`rehold`), before any request is served.
// The job row records the step it is at (`held` → `settling` → `settled`, `held` → `releasing` → `released`) in
// the same statement that ends the job, so a crash between the two leaves a step any instance finishes (`reconcile`).
import { tableHolds } from '../billing/holds.ts';
import type { Hold } from '../billing/ledger.ts';
import { settleIn } from '../billing/ledger.ts';
import type { Ledger } from '../billing/ledger-service.ts';
import type { Unit } from '../billing/pricing.ts';
import type { Store } from '../db/store.ts';
import type { JobRow, JobStore } from './store.ts';
import { log } from '../log.ts';

export const holdOf = (job: JobRow): Hold => ({
  requestId: job.id,
  accountId: job.account_id,
  keyId: job.key_id,
  usd: job.hold_usd,
  diem: job.hold_diem,
});

export interface BillingInfo {
  endpoint: string;
  unit: Unit;
}

export class JobBilling {
  private readonly store: Store;
  private readonly jobs: JobStore;
  private readonly ledger: Ledger;
  /** Billing steps running in this process, by job id: never two at once for one job (memory holds count them once). */
  private readonly inFlight = new Map<string, Promise<void>>();

  constructor(store: Store, jobs: JobStore, ledger: Ledger) {
    this.store = store;
    this.jobs = jobs;
    this.ledger = ledger;
  }

  /** Settles a succeeded job's hold to its recorded cost, once; then marks it settled. */
  settle(id: string, info: BillingInfo): Promise<void> {
    return this.once(id, 'settling', async (job) => {
      await this.ledger.settle(holdOf(job), costOf(job), usageOf(job, info)).committed;
      await this.jobs.billed(id, 'settling');
    });
  }

  /** Releases a failed or cancelled job's hold, once; then marks it released. */
  release(id: string): Promise<void> {
    return this.once(id, 'releasing', async (job) => {
      await this.ledger.release(holdOf(job));
      await this.jobs.billed(id, 'releasing');
    });
  }

  /**
   * SQLite at start: holds were in the previous process's memory. Jobs still holding take their hold again (the
   * credit was never debited, and nothing else holds anything yet); a job whose hold cannot be taken again (its
   * balance went elsewhere) fails refunded. Jobs that were settling settle now; jobs that were releasing are done.
   */
  async rehold(kinds: string[], bill: (job: JobRow) => BillingInfo): Promise<void> {
    for (const job of await this.jobs.openBilling(['held', 'settling', 'releasing'], kinds)) {
      if (job.billing === 'releasing') {
        await this.jobs.billed(job.id, 'releasing');
        continue;
      }
      try {
        const { hold } = await this.ledger.reserve({
          requestId: job.id,
          accountId: job.account_id,
          keyId: job.key_id,
          estimate: { usd: job.quote_usd, diem: job.quote_diem },
        });
        await this.jobs.setHold(job.id, hold);
        Object.assign(job, { hold_usd: hold.usd, hold_diem: hold.diem });
      } catch (e) {
        if (job.billing === 'held') {
          log.error({ err: e }, `jobs: job ${job.id} could not hold its quote again after the restart; it fails refunded`);
          if (await this.jobs.fail(job.id, null, { code: 'interrupted', message: 'The job was interrupted by a restart and could not resume' }))
            await this.jobs.billed(job.id, 'releasing');
          continue;
        }
        // Settling without a hold still bills once (the usage row decides), within what the balance allows.
        await this.store.tx((q) => settleIn(this.store, q, holdOf(job), costOf(job), usageOf(job, bill(job)), Date.now(), tableHolds(this.store)));
        await this.jobs.billed(job.id, 'settling');
        continue;
      }
      if (job.billing === 'settling') await this.settle(job.id, bill(job));
    }
  }

  /** Finishes billing steps a crash interrupted (settling or releasing jobs), on any instance. */
  async reconcile(kinds: string[], bill: (job: JobRow) => BillingInfo): Promise<void> {
    for (const job of await this.jobs.openBilling(['settling', 'releasing'], kinds)) {
      if (job.billing === 'settling') await this.settle(job.id, bill(job));
      else await this.release(job.id);
    }
  }

  /** Waits for the billing steps under way (graceful stop). */
  async drain(): Promise<void> {
    while (this.inFlight.size) await Promise.allSettled([...this.inFlight.values()]);
  }

  /**
   * Runs one billing step of a job, at most one at a time per job in this process, and only while the job (read
   * afresh) is still at `from`: a step that comes late (a reconcile that read the row before the worker finished)
   * finds it done and does nothing, so the ledger never settles or releases one hold twice here.
   */
  private once(id: string, from: 'settling' | 'releasing', step: (job: JobRow) => Promise<void>): Promise<void> {
    const running = this.inFlight.get(id);
    const next = (running ?? Promise.resolve())
      .catch(() => {})
      .then(async () => {
        const job = await this.jobs.get(id);
        if (job?.billing === from) await step(job);
      });
    const tracked = next.finally(() => {
      if (this.inFlight.get(id) === tracked) this.inFlight.delete(id);
    });
    this.inFlight.set(id, tracked);
    return tracked;
  }
}

const costOf = (job: JobRow) => ({ usd: job.cost_usd ?? 0, diem: job.cost_diem ?? 0 });

function usageOf(job: JobRow, info: BillingInfo) {
  return {
    modelId: job.model_id,
    endpoint: info.endpoint,
    promptTokens: 0,
    completionTokens: 0,
    cachedTokens: 0,
    unit: info.unit,
    quantity: job.quantity ?? 0,
  };
}
