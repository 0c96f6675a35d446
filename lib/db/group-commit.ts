// Group commit: operations that arrive in the same turn of the event loop run in one transaction, so a burst of
// concurrent requests pays for one commit instead of one each. Each operation keeps its own outcome: one that
// throws an ApiError (a refusal decided before it wrote anything) is rejected alone; any other error aborts the
// batch and rejects every operation in it.
import { ApiError } from '../api/errors.ts';
import type { Queryable, Store } from './store.ts';

interface Pending {
  op: (q: Queryable) => Promise<unknown>;
  /** Batches run in key order, so two processes sharing PostgreSQL lock rows in the same order (no deadlocks). */
  key: string;
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
}

export class GroupCommit {
  private readonly store: Store;
  private readonly maxBatch: number;
  private readonly lazyMs: number;
  private pending: Pending[] = [];
  private running: Promise<void> | undefined;
  private scheduled = false;
  private lazyTimer: NodeJS.Timeout | undefined;

  /** `lazyMs`: how long a lazy operation may wait for company before it commits on its own. */
  constructor(store: Store, opts: { maxBatch?: number; lazyMs?: number } = {}) {
    this.store = store;
    this.maxBatch = opts.maxBatch ?? 256;
    this.lazyMs = opts.lazyMs ?? 10;
  }

  /**
   * Queues an operation. An urgent one (a caller is waiting on it) commits at the end of this event-loop turn; a
   * lazy one (work after the response, such as a settlement) waits up to lazyMs so several share one commit.
   */
  run<T>(key: string, op: (q: Queryable) => Promise<T>, lazy = false): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.pending.push({ op, key, resolve: resolve as (v: unknown) => void, reject });
      if (!lazy) this.schedule();
      else
        this.lazyTimer ??= setTimeout(() => {
          this.lazyTimer = undefined;
          this.schedule();
        }, this.lazyMs);
    });
  }

  /** Whether nothing is queued or committing: an operation queued now would commit alone. */
  idle(): boolean {
    return this.pending.length === 0 && !this.running && !this.scheduled;
  }

  /** Resolves once every operation queued so far has committed (or failed). */
  async drain(): Promise<void> {
    if (this.lazyTimer) {
      clearTimeout(this.lazyTimer);
      this.lazyTimer = undefined;
      this.schedule();
    }
    while (this.pending.length || this.running || this.scheduled) await (this.running ?? new Promise((r) => setImmediate(r)));
  }

  private schedule() {
    if (this.scheduled || this.running) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.running = this.flush().finally(() => {
        this.running = undefined;
        if (this.pending.length) this.schedule();
      });
    });
  }

  private async flush(): Promise<void> {
    const batch = this.pending.splice(0, this.maxBatch).sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    const outcomes: { ok: boolean; value: unknown }[] = [];
    try {
      await this.store.tx(async (q) => {
        for (const p of batch) {
          try {
            outcomes.push({ ok: true, value: await p.op(q) });
          } catch (e) {
            if (!(e instanceof ApiError)) throw e;
            outcomes.push({ ok: false, value: e });
          }
        }
      });
    } catch (e) {
      for (const p of batch) p.reject(e);
      return;
    }
    batch.forEach((p, i) => (outcomes[i].ok ? p.resolve(outcomes[i].value) : p.reject(outcomes[i].value)));
  }
}
