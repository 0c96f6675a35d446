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
  private pending: Pending[] = [];
  private running: Promise<void> | undefined;
  private scheduled = false;

  constructor(store: Store, maxBatch = 256) {
    this.store = store;
    this.maxBatch = maxBatch;
  }

  run<T>(key: string, op: (q: Queryable) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.pending.push({ op, key, resolve: resolve as (v: unknown) => void, reject });
      this.schedule();
    });
  }

  /** Resolves once every operation queued so far has committed (or failed). */
  async drain(): Promise<void> {
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
