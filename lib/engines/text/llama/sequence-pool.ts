// A fixed set of slots (llama context sequences) handed out one request at a time, with a bounded FIFO queue of
// waiters. A full queue refuses at once (the caller maps that to a capacity error), a waiter not served within
// `maxWaitMs` is refused the same way, and a waiter whose signal aborts leaves the queue.

export class QueueFullError extends Error {}
/** A waiter that got no slot within the pool's wait bound; a kind of QueueFullError (the same capacity answer). */
export class QueueTimeoutError extends QueueFullError {}
export class PoolClosedError extends Error {}

interface Waiter<T> {
  resolve(slot: T): void;
  reject(err: unknown): void;
  cleanup(): void;
}

export class SlotPool<T> {
  private free: T[];
  private waiters: Waiter<T>[] = [];
  private closedWith: Error | null = null;
  private readonly maxQueue: number;
  private readonly maxWaitMs: number;

  constructor(slots: readonly T[], maxQueue: number, maxWaitMs = 60_000) {
    this.free = [...slots];
    this.maxQueue = maxQueue;
    this.maxWaitMs = maxWaitMs;
  }

  get waiting(): number {
    return this.waiters.length;
  }

  get available(): number {
    return this.free.length;
  }

  /**
   * A free slot, or one released later in FIFO order. `prefer` ranks free slots (the highest wins), e.g. by how
   * much of the prompt a sequence already holds. Rejects with signal.reason on abort.
   */
  acquire(signal: AbortSignal, prefer?: (slot: T) => number): Promise<T> {
    if (this.closedWith) return Promise.reject(this.closedWith);
    if (signal.aborted) return Promise.reject(signal.reason);
    if (this.free.length > 0) {
      let best = 0;
      if (prefer) {
        let bestScore = -Infinity;
        this.free.forEach((slot, i) => {
          const score = prefer(slot);
          if (score > bestScore) [best, bestScore] = [i, score];
        });
      }
      return Promise.resolve(this.free.splice(best, 1)[0]);
    }
    if (this.waiters.length >= this.maxQueue) {
      return Promise.reject(new QueueFullError(`all slots busy and ${this.waiters.length} requests already queued`));
    }
    return new Promise<T>((resolve, reject) => {
      const leave = () => {
        const i = this.waiters.indexOf(waiter);
        if (i >= 0) this.waiters.splice(i, 1);
        waiter.cleanup();
      };
      const onAbort = () => {
        leave();
        reject(signal.reason);
      };
      const timer = setTimeout(() => {
        leave();
        reject(new QueueTimeoutError(`no slot became free within ${this.maxWaitMs} ms`));
      }, this.maxWaitMs);
      const waiter: Waiter<T> = {
        resolve,
        reject,
        cleanup: () => {
          clearTimeout(timer);
          signal.removeEventListener('abort', onAbort);
        },
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(waiter);
    });
  }

  /** Returns a slot: the longest-waiting request gets it, else it becomes free. */
  release(slot: T): void {
    const next = this.waiters.shift();
    if (next) {
      next.cleanup();
      next.resolve(slot);
    } else {
      this.free.push(slot);
    }
  }

  /** Rejects every waiter and every later acquire with `err`. */
  close(err: Error): void {
    this.closedWith = err;
    for (const w of this.waiters.splice(0)) {
      w.cleanup();
      w.reject(err);
    }
  }
}
